import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server for images and seeds: GET and HEAD of the paths it holds, 404 for others.
 * `noHead` answers HEAD with 405, as some object stores do; `redirects` sends a path elsewhere (302);
 * `statuses` answers a path with that status and no body (a 500 of a server that is up but broken).
 */
export class Files {
  readonly served = new Map<string, Buffer>();
  readonly redirects = new Map<string, string>();
  readonly statuses = new Map<string, number>();
  readonly requests: Array<{ method: string; path: string }> = [];
  noHead = false;
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.requests.push({ method: req.method ?? '', path });
      const to = this.redirects.get(path);
      if (to) return void res.writeHead(302, { location: to }).end();
      const status = this.statuses.get(path);
      if (status) return void res.writeHead(status).end();
      const body = this.served.get(path);
      if (req.method === 'HEAD' && this.noHead) return void res.writeHead(405).end();
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    await new Promise((r) => (this.server ? this.server.close(r) : r(undefined)));
  }
}
