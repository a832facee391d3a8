"""A TLS client that holds a code and is not the node: it reads the whole answer, then resets the
connection (SO_LINGER 0), as a thief would to make the answer look lost. Prints the HTTP status.
  read-then-reset-client.py PORT CA PATH LOCAL_ADDRESS [close]
close: the request says `Connection: close`, as a node's would."""
import socket, ssl, struct, sys

port, ca, path, local = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
close = "Connection: close\r\n" if len(sys.argv) > 5 and sys.argv[5] == "close" else ""
s = socket.socket()
s.bind((local, 0))
s.connect(("127.0.0.1", port))
ctx = ssl.create_default_context(cafile=ca)
t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
t.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n".encode())
data = b""
while b"\r\n\r\n" not in data:
    data += t.recv(65536)
head, _, body = data.partition(b"\r\n\r\n")
length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
while len(body) < length:
    body += t.recv(65536)
print(head.split(b" ")[1].decode(), flush=True)
t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
t.close()
