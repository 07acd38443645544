"""Runs a notebook as `jupyter nbconvert --execute` does: no interrupts,
and errors allowed only in cells tagged raises-exception.

Usage: unattended.py NOTEBOOK   (JUPYTER_PATH must name the kernelspec)
"""
import sys

import nbformat
from nbclient import NotebookClient

nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="bitsh", timeout=60).execute()
print("ran unattended")
