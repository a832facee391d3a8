import { describe, expect, it } from 'vitest';
import { documentUrls } from '../../verifier/http/document-urls.js';
import { listeningUrl, parseListenAddress } from '../../verifier/http/listen-address.js';

const none: Parameters<typeof documentUrls>[0] = { baseUrl: undefined, configUrl: undefined, seedUrl: undefined };
const urls = (listen: string, o = none) => {
  const addr = parseListenAddress(listen);
  return documentUrls(o, addr, listeningUrl(addr, addr.port, true));
};

describe("the URLs a run's node fetches from", () => {
  it('default to where fleetd listens when a node can reach it', () => {
    expect(urls('10.0.1.2:8443')).toEqual({ configUrl: 'https://10.0.1.2:8443/v1/config', seedUrl: 'https://10.0.1.2:8443/v1/seed' });
    expect(urls('[fd00::2]:8443').configUrl).toBe('https://[fd00::2]:8443/v1/config');
  });

  it.each(['0.0.0.0:8443', ':8443', '[::]:8443', '127.0.0.1:8443', '[::1]:8443', 'localhost:8443'])('have no default from %s: no node reaches it', (listen) => {
    expect(urls(listen)).toEqual({});
  });

  it('are what the operator gives, --config-url and --seed-url over --base-url', () => {
    expect(urls('0.0.0.0:8443', { ...none, baseUrl: 'https://spore.lab:8443/' })).toEqual({
      configUrl: 'https://spore.lab:8443/v1/config',
      seedUrl: 'https://spore.lab:8443/v1/seed',
    });
    expect(urls('0.0.0.0:8443', { ...none, baseUrl: 'https://spore.lab', configUrl: 'https://cfg.lab/c' })).toEqual({
      configUrl: 'https://cfg.lab/c',
      seedUrl: 'https://spore.lab/v1/seed',
    });
  });
});
