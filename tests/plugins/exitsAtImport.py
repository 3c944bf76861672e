"""A pybatsim plugin that ends its process with status 0 as it is imported, before it answers."""

import os

os._exit(0)
