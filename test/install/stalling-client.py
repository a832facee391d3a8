"""A TLS client that takes none of the answer: a tiny receive buffer it never reads, then either a
stall (`stall SECONDS`) or an exit with unread data (`reset`), which makes the kernel send a TCP
reset. What a node whose network or power fails mid-answer looks like to the server.

It reads nothing through TLS on purpose: OpenSSL reads a whole record (up to 16 KiB) to return a
single byte, which would take most of a config. TLS 1.2 keeps the handshake the last thing the
client reads, so the first bytes waiting afterwards are the answer."""
import select, socket, ssl, sys, time, os

port, ca, path, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # the kernel's minimum: a window of about 1 KiB
s.connect(("127.0.0.1", port))
ctx = ssl.create_default_context(cafile=ca)
ctx.maximum_version = ssl.TLSVersion.TLSv1_2
t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
t.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
raw = socket.socket(fileno=os.dup(t.fileno()))  # the TCP socket under TLS, to peek without reading
ready, _, _ = select.select([raw], [], [], 10)
print("answered" if ready and raw.recv(1, socket.MSG_PEEK) else "no answer", flush=True)
if mode == "stall":
    time.sleep(float(sys.argv[5]))
os._exit(0)  # unread data in the receive queue: the kernel answers with RST
