#!/usr/bin/env python3
"""A man in the middle for the direct data path tests (tests/cluster/sync_direct_test.sh).

tamper_proxy.py PORT OFFSET MARK SECONDS

Listens on PORT, where an iptables REDIRECT in the node's network namespace sends the node's outgoing TCP to a peer;
connects each connection on to its original destination (SO_ORIGINAL_DST) with SO_MARK=MARK, which the REDIRECT
rule lets through; and passes the bytes both ways unchanged, except that in the first connection whose
client-to-server bytes reach OFFSET it flips one bit of the byte at OFFSET. Prints "tampered <dest>" when it did.
Exits after SECONDS whatever happens (every loop here is bounded).
"""
import socket
import struct
import sys
import threading
import time

SO_ORIGINAL_DST = 80


def main():
    port, offset, mark, seconds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    deadline = time.monotonic() + seconds
    state = {"tampered": False}
    lock = threading.Lock()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", port))
    listener.listen(64)
    listener.settimeout(0.2)
    print("listening", flush=True)

    def pump(src, dst, tamper):
        seen = 0
        try:
            while time.monotonic() < deadline:
                try:
                    data = src.recv(1 << 16)
                except socket.timeout:
                    continue
                if not data:
                    break
                if tamper and seen <= offset < seen + len(data):
                    with lock:
                        if not state["tampered"]:
                            state["tampered"] = True
                            buf = bytearray(data)
                            buf[offset - seen] ^= 0x10
                            data = bytes(buf)
                            print("tampered", dst.getpeername()[0], flush=True)
                seen += len(data)
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    while time.monotonic() < deadline:
        try:
            client, _ = listener.accept()
        except socket.timeout:
            continue
        raw = client.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16)
        dport, = struct.unpack("!H", raw[2:4])
        dip = socket.inet_ntoa(raw[4:8])
        upstream = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        upstream.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
        try:
            upstream.connect((dip, dport))
        except OSError:
            client.close()
            continue
        for s in (client, upstream):
            s.settimeout(0.2)
        threading.Thread(target=pump, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, False), daemon=True).start()


if __name__ == "__main__":
    main()
