"""Code for the book "Backpropagation": chapters run it, tests import it."""
