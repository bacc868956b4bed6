/** `--peer-url`: the peer as a target, and the check that it answers before anything is measured. */
import type { PeerOptions } from './options.js';
import { PEER_DIALECTS } from './peers.js';
import { childPids, isRunning } from './proc.js';
import type { BenchData } from './seed.js';
import { send, type Target } from './targets.js';

export class PeerRefused extends Error {}

/** A peer's serving processes: `pid` and its children (the workers of gunicorn, pm2, node:cluster; a master's own share counts too). */
const servingOf = (pid: number): number[] => [pid, ...childPids(pid)];

/** An already running service: the bench neither starts nor stops it, and sees its processes only when told its pid. */
export function peerTarget(peer: PeerOptions): Target {
  const { pid } = peer;
  if (pid !== undefined && !isRunning(pid)) throw new PeerRefused(`--peer-pid ${pid}: no such process on this machine.`);
  return {
    kind: 'peer',
    url: peer.url.replace(/\/+$/, ''),
    dialect: PEER_DIALECTS[peer.kind],
    tokens: { admin: peer.token, viewer: peer.viewerToken },
    carried: new Map(),
    servingPids: () => (pid === undefined ? [] : servingOf(pid)),
    stop: async () => {},
  };
}

/** The peer must answer issue 1's detail with the superuser's token, or its URL, kind, token or rows are not what the bench needs. */
export async function checkPeer(peer: Target, data: BenchData, kind: PeerOptions['kind']): Promise<void> {
  const path = '/api/issue/issue/1';
  const sent = peer.dialect.request({ method: 'GET', path }).path;
  let res;
  try {
    res = await send(peer, data, { method: 'GET', path });
  } catch (err) {
    throw new PeerRefused(`the peer at ${peer.url} does not answer (${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}).`);
  }
  if (res.status !== 200) {
    throw new PeerRefused(`the peer (--peer-kind ${kind}) answered GET ${peer.url}${sent} with ${res.status}, not 200: ${(await res.text()).slice(0, 300)}. Check its URL, kind and token, and that it holds the exported rows.`);
  }
  await res.arrayBuffer();
}
