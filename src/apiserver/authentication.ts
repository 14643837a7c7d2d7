import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { identityFromCertificate } from '../pki/certificates.js';
import type { ApiRequest, UserInfo } from './http/types.js';
import { unauthorized } from './status.js';

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Identity per TLS connection: a client certificate is read once, not on every request. */
const identities = new WeakMap<TLSSocket, UserInfo>();

/**
 * x509 client-certificate authentication: a certificate the cluster CA signed names the user
 * (CN) and groups (O); no certificate means system:anonymous; a certificate the CA did not
 * sign is a 401.
 */
export function authenticate(req: ApiRequest): UserInfo {
  // HTTP/2 requests share their session's TLS socket; HTTP/1.1 requests own theirs.
  const socket = ('stream' in req ? req.stream.session?.socket : req.socket) as TLSSocket;
  const known = identities.get(socket);
  if (known) return known;
  const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate(false) : undefined;
  let user: UserInfo = ANONYMOUS;
  if (peer?.raw) {
    if (!socket.authorized) throw unauthorized();
    const identity = identityFromCertificate(new X509Certificate(peer.raw));
    if (!identity) throw unauthorized();
    user = { name: identity.user, groups: [...identity.groups, 'system:authenticated'] };
  }
  identities.set(socket, user);
  return user;
}
