"""Checks the bitsh kernel's replies to the requests beside execute, with
jupyter_client: kernel_info, complete, inspect, is_complete, interrupt by
message (interrupt_request on the control channel) and shutdown.

Usage: protocol.py   (JUPYTER_PATH must name the kernelspec)
"""
import sys
import time

from jupyter_client.manager import start_new_kernel

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


km, kc = start_new_kernel(kernel_name="bitsh")
try:
    info = kc.kernel_info(reply=True, timeout=10)["content"]
    check(info["implementation"] == "bitsh", "kernel_info implementation %r" % info.get("implementation"))
    check(info["protocol_version"].startswith("5."), "protocol_version %r" % info.get("protocol_version"))
    check(info["language_info"]["file_extension"] == ".star", "language_info %r" % info.get("language_info"))

    kc.execute("mask = 0xff", reply=True, timeout=10)
    c = kc.complete("x = popc", reply=True, timeout=10)["content"]
    check("popcount" in c["matches"] and c["cursor_start"] == 4 and c["cursor_end"] == 8, "complete builtin: %r" % c)
    c = kc.complete("ma", reply=True, timeout=10)["content"]
    check("mask" in c["matches"] and "math" in c["matches"], "complete global: %r" % c)
    c = kc.complete("math.sq", reply=True, timeout=10)["content"]
    check(c["matches"] == ["sqrt"] and c["cursor_start"] == 5, "complete attribute: %r" % c)

    r = kc.inspect("popcount(", cursor_pos=9, reply=True, timeout=10)["content"]
    check(r["found"] and r["data"]["text/plain"].startswith("popcount(x)"), "inspect: %r" % r)
    r = kc.inspect("no_such_name", reply=True, timeout=10)["content"]
    check(not r["found"], "inspect unknown: %r" % r)

    for code, want in [("x = 1", "complete"), ("def f():", "incomplete"), ("x = (1,", "incomplete"),
                       ("def f():\n    return 1\n\n", "complete"), ("x = +* 2", "invalid")]:
        msg_id = kc.is_complete(code)
        r = kc.get_shell_msg(timeout=10)
        check(r["parent_header"]["msg_id"] == msg_id, "is_complete reply to another request")
        r = r["content"]
        check(r["status"] == want, "is_complete(%r): %r, want %s" % (code, r, want))

    # interrupt_request on the control channel stops a running cell, a
    # native kernel included (set_classes walks a long search).
    for code in ["n = 0\nwhile True:\n    n += 1\n", "for c in set_classes(12):\n    pass\n"]:
        msg_id = kc.execute(code)
        time.sleep(0.3)
        t = time.perf_counter()
        kc.control_channel.send(kc.session.msg("interrupt_request", {}))
        reply = kc.get_shell_msg(timeout=10)
        took = (time.perf_counter() - t) * 1e3
        print("interrupt_request to execute_reply: %.1f ms (%s)" % (took, code.splitlines()[0]))
        check(reply["parent_header"]["msg_id"] == msg_id and reply["content"]["status"] == "error",
              "interrupted cell reply: %r" % reply["content"])
    r = kc.execute("n > 0", reply=True, timeout=10)["content"]
    check(r["status"] == "ok", "kernel alive after interrupts: %r" % r)

    kc.shutdown()
    deadline = time.time() + 5
    while km.is_alive() and time.time() < deadline:
        time.sleep(0.05)
    check(not km.is_alive(), "kernel still alive 5 s after shutdown_request")
finally:
    kc.stop_channels()
    if km.is_alive():
        km.shutdown_kernel(now=True)

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("all replies as expected")
