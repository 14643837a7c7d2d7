import { NODE_USER_PREFIX, NODES_GROUP } from '../../../pki/cluster-pki.js';
import type { AttributesUser } from '../rbac/attributes.js';

/**
 * The node a user is, as Kubernetes' default node identifier reads it: a name starting with
 * `system:node:` and membership of `system:nodes`. `undefined` for anyone else; a node user with
 * nothing after the prefix is a node whose name is `''`.
 */
export function nodeNameOf(user: AttributesUser | undefined): string | undefined {
  if (!user?.name.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}
