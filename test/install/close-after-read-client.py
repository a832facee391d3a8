"""A TLS client that sends `Connection: close`, reads the whole answer, and closes as curl does
once the answer is in: its TLS close_notify, then a FIN (no reset), without waiting for fleetd's.
Prints the HTTP status.
  close-after-read-client.py PORT CA PATH [unwrap]
unwrap: wait for fleetd's close_notify first (a client that reads to the end of the stream)."""
import socket, ssl, sys

port, ca, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
unwrap = len(sys.argv) > 4 and sys.argv[4] == "unwrap"
s = socket.create_connection(("127.0.0.1", port))
ctx = ssl.create_default_context(cafile=ca)
t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
t.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
data = b""
while b"\r\n\r\n" not in data:
    data += t.recv(65536)
head, _, body = data.partition(b"\r\n\r\n")
length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
while len(body) < length:
    body += t.recv(65536)
print(head.split(b" ")[1].decode(), flush=True)
if unwrap:
    while t.recv(65536):
        pass
    t.unwrap().close()
else:
    t.close()
