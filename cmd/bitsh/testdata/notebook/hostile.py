"""Sends the bitsh kernel requests that used to wedge or kill it, with
jupyter_client, and checks the replies and that the kernel stays alive:
execute_request and complete_request on the control channel while a cell
runs, an inspect_request whose code is 20,000,000 '(', is_complete of a
nesting bomb, an interrupt after all of these, and a shutdown_request
while a cell runs.

Usage: hostile.py   (JUPYTER_PATH must name the kernelspec)
"""
import sys
import time

from jupyter_client.manager import start_new_kernel

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def control_reply(kc, msg_type, content, timeout=10):
    """Sends a request on control and returns its reply's content."""
    msg = kc.session.msg(msg_type, content)
    kc.control_channel.send(msg)
    t = time.perf_counter()
    while True:
        r = kc.get_control_msg(timeout=timeout)
        if r["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            print("%s on control answered in %.1f ms" % (msg_type, (time.perf_counter() - t) * 1e3))
            return r["content"]


km, kc = start_new_kernel(kernel_name="bitsh")
try:
    busy = kc.execute("n = 0\nwhile True:\n    n += 1\n")
    time.sleep(0.3)
    r = control_reply(kc, "execute_request", {"code": "1 + 1", "silent": False})
    check(r["status"] == "error" and r["ename"] == "ControlChannel", "execute_request on control: %r" % r)
    r = control_reply(kc, "complete_request", {"code": "popc", "cursor_pos": 4})
    check(r["status"] == "error" and r["ename"] == "ControlChannel", "complete_request on control: %r" % r)
    r = control_reply(kc, "inspect_request", {"code": "(" * 20000000, "cursor_pos": 20000000})
    check(r["status"] == "ok" and not r["found"], "inspect of a nesting bomb: %r" % r)
    r = control_reply(kc, "is_complete_request", {"code": "(" * 2000000})
    check(r["status"] in ("invalid", "incomplete"), "is_complete of a nesting bomb: %r" % r)
    r = control_reply(kc, "interrupt_request", {})
    check(r["status"] == "ok", "interrupt_request: %r" % r)
    reply = kc.get_shell_msg(timeout=10)
    check(reply["parent_header"]["msg_id"] == busy and reply["content"]["status"] == "error"
          and reply["content"]["ename"] == "KeyboardInterrupt", "interrupted cell reply: %r" % reply["content"])
    r = kc.execute("n > 0", reply=True, timeout=10)["content"]
    check(r["status"] == "ok", "kernel alive after the hostile requests: %r" % r)
    r = kc.inspect("(" * 20000000, cursor_pos=20000000, reply=True, timeout=20)["content"]
    check(r["status"] == "ok" and not r["found"], "inspect of a nesting bomb on shell: %r" % r)

    # A shutdown while a cell runs is answered and ends the kernel.
    kc.execute("while True:\n    pass\n")
    time.sleep(0.3)
    r = control_reply(kc, "shutdown_request", {"restart": False})
    check(r["status"] == "ok", "shutdown_request: %r" % r)
    deadline = time.time() + 5
    while km.is_alive() and time.time() < deadline:
        time.sleep(0.05)
    check(not km.is_alive(), "kernel still alive 5 s after shutdown_request during a cell")
finally:
    kc.stop_channels()
    if km.is_alive():
        km.shutdown_kernel(now=True)

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("all hostile requests answered")
