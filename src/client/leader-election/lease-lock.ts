// The lock leader election holds: a coordination.k8s.io/v1 Lease, read and written as
// client-go's LeaseLock does.
import type { Lease } from '../../api/types/coordination-v1.generated.js';
import type { ResourceClient } from '../types.js';

/** The lease's spec, with times as epoch milliseconds. */
export interface LeaderElectionRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number;
  readonly renewTime: number;
  readonly leaderTransitions: number;
}

/** metav1.MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function parseTime(text: string | undefined): number {
  const ms = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

export function recordFromLease(lease: Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec.acquireTime),
    renewTime: parseTime(spec.renewTime),
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

function specFromRecord(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: microTime(record.acquireTime),
    renewTime: microTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
}

export class LeaseLock {
  /** The lease as last read or written; updates send it back with its resourceVersion. */
  lease?: Lease;

  constructor(
    private readonly leases: ResourceClient<Lease>,
    readonly namespace: string,
    readonly name: string,
    readonly identity: string,
    private readonly labels?: Readonly<Record<string, string>>,
  ) {}

  /** The current record and its serialized form (to notice any change). Throws the API error (404 ...). */
  async get(): Promise<{ record: LeaderElectionRecord; raw: string }> {
    this.lease = await this.leases.get(this.namespace, this.name);
    const record = recordFromLease(this.lease);
    return { record, raw: JSON.stringify(this.lease.spec ?? {}) };
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.lease = await this.leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        ...(this.labels ? { labels: { ...this.labels } } : {}),
      },
      spec: specFromRecord(record),
    });
  }

  /** Writes the record over the lease last read (a conflict if someone wrote since). */
  async update(record: LeaderElectionRecord): Promise<void> {
    if (this.lease === undefined) throw new Error('lease not initialized, call get or create first');
    const metadata = { ...this.lease.metadata };
    if (this.labels) metadata.labels = { ...metadata.labels, ...this.labels };
    this.lease = await this.leases.update({ ...this.lease, metadata, spec: specFromRecord(record) });
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }
}
