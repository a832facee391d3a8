"""A TLS client that reads a whole answer, prints its HTTP status, and ends the connection one way.
  answer-reader-client.py PORT CA PATH LOCAL_ADDRESS END [close]
END: reset   (SO_LINGER 0, as a holder of the code that is not the node would, to make the answer look lost)
     close   (its close_notify, then a FIN, without waiting for fleetd's: as curl does once the answer is in)
     unwrap  (waits for fleetd's close_notify first: a client that reads to the end of the stream)
close: the request says `Connection: close`, as a node's may."""
import socket, ssl, struct, sys

port, ca, path, local, end = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
close = "Connection: close\r\n" if len(sys.argv) > 6 and sys.argv[6] == "close" else ""
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
if end == "reset":
    t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
elif end == "unwrap":
    while t.recv(65536):
        pass
    t = t.unwrap()
t.close()
