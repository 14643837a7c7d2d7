import { CompactedError, type Store, type WatchEvent } from '../../storage/index.js';
import type { PolicySource } from './rbac/rule-resolver.js';
import type { ClusterRole, Role, RoleBinding } from './rbac/types.js';

const PREFIX = '/registry/rbac.authorization.k8s.io/';

type Kind = 'roles' | 'rolebindings' | 'clusterroles' | 'clusterrolebindings';

/**
 * RBAC objects held in memory and kept current by a store watch, as kube-apiserver's
 * authorizer reads them from informers: authorization never reads the store on the
 * request path. `onClusterRolesChanged` is told whenever ClusterRoles change.
 */
export class PolicyCache implements PolicySource {
  private readonly clusterRolesByName = new Map<string, ClusterRole>();
  private readonly clusterBindingsByName = new Map<string, RoleBinding>();
  private readonly rolesByNamespace = new Map<string, Map<string, Role>>();
  private readonly bindingsByNamespace = new Map<string, Map<string, RoleBinding>>();
  private stopped = false;
  private watch?: ReturnType<Store['watch']>;

  constructor(
    private readonly store: Store,
    private readonly onClusterRolesChanged: () => void = () => {},
  ) {}

  /** Loads everything, then follows changes until stop(). */
  async start(): Promise<void> {
    const revision = await this.load();
    void this.follow(revision);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.close();
  }

  clusterRoles(): readonly ClusterRole[] {
    return [...this.clusterRolesByName.values()];
  }

  clusterRoleBindings(): readonly RoleBinding[] {
    return [...this.clusterBindingsByName.values()];
  }

  roles(namespace: string): readonly Role[] {
    return [...(this.rolesByNamespace.get(namespace)?.values() ?? [])];
  }

  roleBindings(namespace: string): readonly RoleBinding[] {
    return [...(this.bindingsByNamespace.get(namespace)?.values() ?? [])];
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.rolesByNamespace.get(namespace)?.get(name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRolesByName.get(name);
  }

  private async load(): Promise<number> {
    this.clusterRolesByName.clear();
    this.clusterBindingsByName.clear();
    this.rolesByNamespace.clear();
    this.bindingsByNamespace.clear();
    const { items, revision } = await this.store.list(PREFIX);
    for (const kv of items) this.apply(kv.key, kv.value);
    this.onClusterRolesChanged();
    return revision;
  }

  private async follow(revision: number): Promise<void> {
    let from = revision;
    while (!this.stopped) {
      try {
        this.watch = this.store.watch(PREFIX, { afterRevision: from, prefix: true });
        for await (const batch of this.watch) {
          let clusterRolesChanged = false;
          for (const event of batch) clusterRolesChanged = this.applyEvent(event) || clusterRolesChanged;
          from = batch[batch.length - 1]!.revision;
          if (clusterRolesChanged) this.onClusterRolesChanged();
        }
        return;
      } catch (error) {
        if (this.stopped) return;
        // Fell behind compaction: start over from a fresh list, as an informer relists.
        if (error instanceof CompactedError) from = await this.load();
        else throw error;
      }
    }
  }

  /** Applies one event; true when a ClusterRole changed. */
  private applyEvent(event: WatchEvent): boolean {
    if (event.type === 'delete') return this.remove(event.key);
    return this.apply(event.key, event.value!);
  }

  private parse(key: string): { kind: Kind; namespace: string; name: string } | undefined {
    const [kind, ...rest] = key.slice(PREFIX.length).split('/');
    if (kind === 'clusterroles' || kind === 'clusterrolebindings')
      return { kind, namespace: '', name: rest[0] ?? '' };
    if (kind === 'roles' || kind === 'rolebindings')
      return { kind, namespace: rest[0] ?? '', name: rest[1] ?? '' };
    return undefined;
  }

  private apply(key: string, value: string): boolean {
    const where = this.parse(key);
    if (!where) return false;
    const object = JSON.parse(value) as Role & RoleBinding;
    switch (where.kind) {
      case 'clusterroles':
        this.clusterRolesByName.set(where.name, object as ClusterRole);
        return true;
      case 'clusterrolebindings':
        this.clusterBindingsByName.set(where.name, object);
        return false;
      case 'roles':
        namespaced(this.rolesByNamespace, where.namespace).set(where.name, object);
        return false;
      case 'rolebindings':
        namespaced(this.bindingsByNamespace, where.namespace).set(where.name, object);
        return false;
    }
  }

  private remove(key: string): boolean {
    const where = this.parse(key);
    if (!where) return false;
    switch (where.kind) {
      case 'clusterroles':
        return this.clusterRolesByName.delete(where.name);
      case 'clusterrolebindings':
        this.clusterBindingsByName.delete(where.name);
        return false;
      case 'roles':
        this.rolesByNamespace.get(where.namespace)?.delete(where.name);
        return false;
      case 'rolebindings':
        this.bindingsByNamespace.get(where.namespace)?.delete(where.name);
        return false;
    }
  }
}

function namespaced<T>(maps: Map<string, Map<string, T>>, namespace: string): Map<string, T> {
  let map = maps.get(namespace);
  if (!map) {
    map = new Map();
    maps.set(namespace, map);
  }
  return map;
}
