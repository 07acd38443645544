"""Runs a notebook on the bitsh kernel with nbclient (Jupyter's own client)
and checks every output of examples/notebooks/tour.ipynb.

Usage: check.py NOTEBOOK [OUT.ipynb]   (JUPYTER_PATH must name the kernelspec)
A cell tagged "interrupt" gets a 1 s timeout, after which nbclient
interrupts the kernel; the others get 60 s.
"""
import sys
import time
import xml.etree.ElementTree as ET

import nbformat
from nbclient import NotebookClient

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def outputs_of(nb, source_start):
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith(source_start):
            return cell.outputs
    raise SystemExit("no cell starts with %r" % source_start)


def svg(out, what):
    data = out.get("data", {})
    text = data.get("image/svg+xml")
    check(text is not None, what + ": no image/svg+xml")
    if text is None:
        return None
    try:
        return ET.fromstring(text)
    except ET.ParseError as e:
        failures.append("%s: SVG does not parse: %s" % (what, e))
        return None


def texts(root):
    return [el.text for el in root.iter() if el.tag.endswith("text") and el.text]


nb = nbformat.read(sys.argv[1], as_version=4)
client = NotebookClient(
    nb,
    kernel_name="bitsh",
    timeout=60,
    timeout_func=lambda cell: 1 if "interrupt" in cell.metadata.get("tags", []) else 60,
    interrupt_on_timeout=True,
    allow_errors=True,
)
start = time.time()
client.execute()
print("executed in %.2f s" % (time.time() - start))

# Values: the last expression of a cell.
(out,) = outputs_of(nb, "x = 0b1011000")
check(out.output_type == "execute_result", "first cell: want execute_result, got %s" % out.output_type)
check(out.data["text/plain"] == '(3, 3, "0x0058")', "first cell: got %r" % out.data.get("text/plain"))
check(out.execution_count == 1, "first cell: execution_count %r" % out.execution_count)

# Streams: print goes to stdout, line by line.
outs = outputs_of(nb, "for s in subsets")
text = "".join(o.text for o in outs if o.output_type == "stream" and o.name == "stdout")
check(text == "0b0\n0b10\n0b1000\n0b1010\n", "print cell: got %r" % text)
check(all(o.output_type == "stream" for o in outs), "print cell: unexpected outputs %r" % outs)

# A board: an SVG picture with rank and file labels, and the text diagram.
(out,) = outputs_of(nb, "corners = board")
root = svg(out, "board")
if root is not None:
    labels = set(texts(root))
    check(set("abcdefgh") <= labels and set("12345678") <= labels, "board SVG lacks rank/file labels: %r" % labels)
plain = out.data.get("text/plain", "")
check(plain.splitlines()[0].startswith("8 x . . . . . . x"), "board text: %r" % plain)

# SET cards: a picture of three cards.
outs = outputs_of(nb, "hand = ")
check(outs[0].output_type == "stream" and outs[0].text == "True\n", "cards cell print: %r" % outs[0])
root = svg(outs[-1], "cards")
if root is not None:
    colors = {el.get("fill", "").lower() for el in root.iter()} | {el.get("stroke", "").lower() for el in root.iter()}
    check(len(colors - {"", "none", "white", "#fff", "#ffffff", "black", "#000", "#000000"}) >= 3, "cards SVG has fewer than three colours: %r" % colors)

# A plot: nine bars whose titles are the binomial coefficients of 8.
(out,) = outputs_of(nb, "plot(")
root = svg(out, "plot")
if root is not None:
    titles = [el.text for el in root.iter() if el.tag.endswith("title")]
    want = []
    c = 1
    for k in range(9):
        want.append("%d: %d" % (k, c))
        c = c * (8 - k) // (k + 1)
    check(titles == want, "plot bars: got %r, want %r" % (titles, want))

# An error cell: the builtin's message and a traceback.
(out,) = outputs_of(nb, "bsf(0)")
check(out.output_type == "error", "error cell: got %s" % out.output_type)
check(out.evalue.startswith("bsf: "), "error cell evalue: %r" % out.evalue)
check(any("<cell" in line for line in out.traceback), "error cell traceback: %r" % out.traceback)

# An interrupted cell, and the state that survives it.
(out,) = outputs_of(nb, "n = 0")
check(out.output_type == "error" and out.ename == "KeyboardInterrupt", "interrupt cell: %r" % out)
(out,) = outputs_of(nb, "n > 0")
check(out.data["text/plain"] == "(True, 88)", "state after interrupt: %r" % out.data.get("text/plain"))

if len(sys.argv) > 2:
    nbformat.write(nb, sys.argv[2])
if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("all outputs as expected")
