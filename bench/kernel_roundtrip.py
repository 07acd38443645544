"""Measures the bitsh Jupyter kernel with jupyter_client, Jupyter's own
client library: the round trip of a trivial cell (execute_request to
execute_reply, after start-up) and the time from an interrupt to the reply
of a cell that loops forever.

    bitsh kernel install --prefix /tmp/jup
    JUPYTER_PATH=/tmp/jup/share/jupyter /usr/bin/python3 bench/kernel_roundtrip.py [ROUNDS]
"""
import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
t0 = time.perf_counter()
km, kc = start_new_kernel(kernel_name="bitsh")
print("start-up (kernel ready): %.1f ms" % ((time.perf_counter() - t0) * 1e3))
try:
    for _ in range(10):  # warm up
        kc.execute("1", reply=True, timeout=10)
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        kc.execute("1 + 1", reply=True, timeout=10)
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    print("trivial cell round trip over %d rounds: best %.2f ms, median %.2f ms, p90 %.2f ms"
          % (rounds, times[0], statistics.median(times), times[int(0.9 * len(times))]))

    lat = []
    for _ in range(5):
        msg_id = kc.execute("n = 0\nwhile True:\n    n += 1\n")
        time.sleep(0.3)
        t = time.perf_counter()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=10)
        assert reply["parent_header"]["msg_id"] == msg_id, reply
        lat.append((time.perf_counter() - t) * 1e3)
        assert reply["content"]["status"] == "error", reply["content"]
    lat.sort()
    print("interrupt (SIGINT) to execute_reply over 5 rounds: best %.1f ms, median %.1f ms, worst %.1f ms"
          % (lat[0], statistics.median(lat), lat[-1]))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
