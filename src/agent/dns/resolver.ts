// The answers of the cluster zone, per the Kubernetes DNS-Based Service Discovery specification
// as CoreDNS's kubernetes plugin gives them (`pods insecure`, `ttl 30`, reverse zones falling
// through): a pure function of one question and the cluster's records. What is not ours (names
// outside the zone, addresses no service or endpoint has) is left to the upstream resolver.
import type { Answer, RecordType, SoaAnswer, SrvAnswer } from 'dns-packet';
import type { Service } from '../../api/types/core-v1.generated.js';
import { addressOfDashedLabel, addressOfReverseName, isIpv6Address } from './addresses.js';
import { type ClusterRecords, endpointLabel } from './cluster-records.js';

/** The specification's schema version, answered at `dns-version.<zone>` (TXT). */
export const DNS_SCHEMA_VERSION = '1.1.0';
/** CoreDNS's default Corefile sets `ttl 30` in its kubernetes block. */
export const DEFAULT_TTL = 30;

export interface DnsQuestion {
  readonly name: string;
  readonly type: RecordType | string;
}

export interface ResolverSettings {
  /** The cluster domain, e.g. `cluster.local`. */
  readonly zone: string;
  readonly ttl: number;
  /** The cluster DNS service (answers `ns.dns.<zone>`), as `namespace/name`. */
  readonly dnsService: { readonly namespace: string; readonly name: string };
}

export type Rcode = 'NOERROR' | 'NXDOMAIN';

export interface Answered {
  readonly kind: 'answer';
  readonly rcode: Rcode;
  readonly answers: Answer[];
  readonly authorities: Answer[];
  readonly additionals: Answer[];
  /** An ExternalName's target, for the server to resolve and append (CoreDNS's upstream lookup). */
  readonly chase?: string;
}

export type Resolution = Answered | { readonly kind: 'forward' };

const FORWARD: Resolution = { kind: 'forward' };

/** The zone's SOA, as CoreDNS writes it (serial aside: a constant here, tkube has no zone transfers). */
export function soaRecord(settings: ResolverSettings): SoaAnswer {
  return {
    type: 'SOA',
    name: settings.zone,
    ttl: settings.ttl,
    class: 'IN',
    data: {
      mname: `ns.dns.${settings.zone}`,
      rname: `hostmaster.${settings.zone}`,
      serial: 1,
      refresh: 7200,
      retry: 1800,
      expire: 86400,
      minimum: settings.ttl,
    },
  };
}

class Answers {
  readonly answers: Answer[] = [];
  readonly additionals: Answer[] = [];

  constructor(
    private readonly settings: ResolverSettings,
    private readonly question: DnsQuestion,
  ) {}

  /** An A or AAAA record for each address of the asked family; other families are left out. */
  addresses(name: string, addresses: readonly string[], into: Answer[] = this.answers): void {
    const wanted = this.question.type === 'AAAA' ? 'AAAA' : 'A';
    for (const address of new Set(addresses)) {
      const type = isIpv6Address(address) ? 'AAAA' : 'A';
      if (into === this.answers && type !== wanted) continue;
      into.push({ type, name, ttl: this.settings.ttl, class: 'IN', data: address });
    }
  }

  record(answer: Answer): void {
    this.answers.push(answer);
  }

  done(rcode: Rcode, chase?: string): Answered {
    const empty = this.answers.length === 0;
    return {
      kind: 'answer',
      rcode,
      answers: this.answers,
      // NXDOMAIN and NODATA carry the zone's SOA, so that resolvers cache the negative answer.
      authorities: empty ? [soaRecord(this.settings)] : [],
      additionals: this.additionals,
      ...(chase !== undefined && { chase }),
    };
  }
}

function clusterIPsOf(service: Service): string[] {
  const ips = service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : []);
  return ips.filter((ip) => ip !== 'None' && ip !== '');
}

function isHeadless(service: Service): boolean {
  return service.spec?.clusterIP === 'None';
}

/** Resolves one question; `question.name` without the trailing dot, in any letter case. */
export function resolve(
  question: DnsQuestion,
  records: ClusterRecords,
  settings: ResolverSettings,
): Resolution {
  const name = question.name.toLowerCase().replace(/\.$/, '');
  if (name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa')) {
    return resolveReverse(question, name, records, settings);
  }
  const zone = settings.zone.toLowerCase();
  if (name !== zone && !name.endsWith(`.${zone}`)) return FORWARD;
  const out = new Answers(settings, question);
  const labels = name === zone ? [] : name.slice(0, -zone.length - 1).split('.');
  const last = labels.at(-1);
  if (labels.length === 0) return resolveApex(out, question, settings);
  if (labels.length === 1 && last === 'dns-version') {
    if (question.type === 'TXT') {
      out.record({
        type: 'TXT',
        name: question.name,
        ttl: settings.ttl,
        class: 'IN',
        data: DNS_SCHEMA_VERSION,
      });
    }
    return out.done('NOERROR');
  }
  if (last === 'dns') return resolveNameserver(out, question, labels, records, settings);
  if (last === 'svc') return resolveService(out, question, labels.slice(0, -1), records, settings);
  if (last === 'pod') return resolvePod(out, question, labels.slice(0, -1), records);
  return out.done('NXDOMAIN');
}

function resolveApex(out: Answers, question: DnsQuestion, settings: ResolverSettings): Answered {
  if (question.type === 'SOA') out.record({ ...soaRecord(settings), name: question.name });
  if (question.type === 'NS') {
    out.record({
      type: 'NS',
      name: question.name,
      ttl: settings.ttl,
      class: 'IN',
      data: `ns.dns.${settings.zone}`,
    });
  }
  return out.done('NOERROR');
}

/** `ns.dns.<zone>`: the cluster DNS service's own address, named by the zone's NS record. */
function resolveNameserver(
  out: Answers,
  question: DnsQuestion,
  labels: readonly string[],
  records: ClusterRecords,
  settings: ResolverSettings,
): Answered {
  if (labels.length === 1) return out.done('NOERROR');
  if (labels.length !== 2 || labels[0] !== 'ns') return out.done('NXDOMAIN');
  const service = records.service(settings.dnsService.namespace, settings.dnsService.name);
  if (service && (question.type === 'A' || question.type === 'AAAA')) {
    out.addresses(question.name, clusterIPsOf(service));
  }
  return out.done('NOERROR');
}

/** `labels` are what precedes `svc.<zone>`: `[]`, `[ns]`, `[svc, ns]`, `[host, svc, ns]`, `[_port, _proto, svc, ns]`. */
function resolveService(
  out: Answers,
  question: DnsQuestion,
  labels: readonly string[],
  records: ClusterRecords,
  settings: ResolverSettings,
): Answered {
  if (labels.length === 0) return out.done('NOERROR');
  const namespace = labels.at(-1)!;
  if (labels.length === 1) return out.done(records.namespaceExists(namespace) ? 'NOERROR' : 'NXDOMAIN');
  const service = records.service(namespace, labels.at(-2)!);
  if (!service) return out.done('NXDOMAIN');
  const serviceName = `${labels.at(-2)}.${namespace}.svc.${settings.zone}`;
  if (labels.length === 2) return serviceRecords(out, question, service, serviceName, records, settings);
  if (labels.length === 3) {
    const label = labels[0]!;
    // `_tcp.<svc>…` exists (it holds the SRV names below it) when a named port uses the protocol.
    if (label.startsWith('_')) {
      const protocols = servicePorts(service, records).map((port) => `_${port.protocol.toLowerCase()}`);
      return out.done(protocols.includes(label) ? 'NOERROR' : 'NXDOMAIN');
    }
    // Endpoint names answer for any service with endpoints (as CoreDNS's do): the PTR of an
    // endpoint address names them, so they must resolve forward too.
    if (service.spec?.type === 'ExternalName') return out.done('NXDOMAIN');
    const matching = records
      .endpoints(namespace, labels.at(-2)!)
      .filter((endpoint) => endpointLabel(endpoint).toLowerCase() === label);
    if (matching.length === 0) return out.done('NXDOMAIN');
    out.addresses(
      question.name,
      matching.map((endpoint) => endpoint.address),
    );
    return out.done('NOERROR');
  }
  if (labels.length === 4 && labels[0]!.startsWith('_') && labels[1]!.startsWith('_')) {
    const targets = srvTargets(labels[0]!.slice(1), labels[1]!.slice(1), service, serviceName, records);
    if (targets.length === 0) return out.done('NXDOMAIN');
    if (question.type === 'SRV') addSrvRecords(out, question.name, targets, settings);
    return out.done('NOERROR');
  }
  return out.done('NXDOMAIN');
}

function serviceRecords(
  out: Answers,
  question: DnsQuestion,
  service: Service,
  serviceName: string,
  records: ClusterRecords,
  settings: ResolverSettings,
): Answered {
  const { namespace = '', name = '' } = service.metadata ?? {};
  if (service.spec?.type === 'ExternalName') {
    const target = (service.spec.externalName ?? '').replace(/\.$/, '');
    if (!target) return out.done('NOERROR');
    out.record({ type: 'CNAME', name: question.name, ttl: settings.ttl, class: 'IN', data: target });
    return out.done('NOERROR', question.type === 'CNAME' ? undefined : target);
  }
  if (question.type === 'SRV') {
    for (const port of servicePorts(service, records)) {
      const owner = `_${port.name.toLowerCase()}._${port.protocol.toLowerCase()}.${serviceName}`;
      addSrvRecords(
        out,
        owner,
        srvTargets(port.name, port.protocol, service, serviceName, records),
        settings,
      );
    }
    return out.done('NOERROR');
  }
  if (question.type !== 'A' && question.type !== 'AAAA') return out.done('NOERROR');
  if (isHeadless(service)) {
    out.addresses(
      question.name,
      records.endpoints(namespace, name).map((endpoint) => endpoint.address),
    );
  } else {
    out.addresses(question.name, clusterIPsOf(service));
  }
  return out.done('NOERROR');
}

interface NamedPort {
  readonly name: string;
  readonly protocol: string;
}

/** The service's named ports (SRV records exist only for them); a headless one's come from its endpoints. */
function servicePorts(service: Service, records: ClusterRecords): NamedPort[] {
  const { namespace = '', name = '' } = service.metadata ?? {};
  const ports = isHeadless(service)
    ? records.endpoints(namespace, name).flatMap((endpoint) => endpoint.ports)
    : (service.spec?.ports ?? []);
  const seen = new Map<string, NamedPort>();
  for (const port of ports) {
    if (!port.name) continue;
    const protocol = port.protocol ?? 'TCP';
    seen.set(`${port.name}/${protocol}`.toLowerCase(), { name: port.name, protocol });
  }
  return [...seen.values()];
}

interface SrvTarget {
  readonly target: string;
  readonly port: number;
  readonly addresses: string[];
}

/** The targets of `_<port>._<proto>.<svc>…`: the service's name (ClusterIP) or each endpoint's (headless). */
function srvTargets(
  portName: string,
  protocol: string,
  service: Service,
  serviceName: string,
  records: ClusterRecords,
): SrvTarget[] {
  const { namespace = '', name = '' } = service.metadata ?? {};
  const matches = (port: { name?: string; protocol?: string }) =>
    port.name?.toLowerCase() === portName.toLowerCase() &&
    (port.protocol ?? 'TCP').toLowerCase() === protocol.toLowerCase();
  if (service.spec?.type === 'ExternalName') return [];
  if (!isHeadless(service)) {
    const port = (service.spec?.ports ?? []).find(matches);
    return port ? [{ target: serviceName, port: port.port, addresses: clusterIPsOf(service) }] : [];
  }
  const byTarget = new Map<string, SrvTarget>();
  for (const endpoint of records.endpoints(namespace, name)) {
    const port = endpoint.ports.find(matches);
    if (!port?.port) continue;
    const target = `${endpointLabel(endpoint)}.${serviceName}`;
    const key = `${target}:${port.port}`;
    const entry = byTarget.get(key);
    if (entry) entry.addresses.push(endpoint.address);
    else byTarget.set(key, { target, port: port.port, addresses: [endpoint.address] });
  }
  return [...byTarget.values()];
}

/** SRV records under `owner`, with the targets' addresses as additional records. */
function addSrvRecords(
  out: Answers,
  owner: string,
  targets: readonly SrvTarget[],
  settings: ResolverSettings,
): void {
  const weight = Math.floor(100 / Math.max(targets.length, 1));
  for (const { target, port, addresses } of targets) {
    const srv: SrvAnswer = {
      type: 'SRV',
      name: owner,
      ttl: settings.ttl,
      class: 'IN',
      data: { priority: 0, weight, port, target },
    };
    out.record(srv);
    out.addresses(target, addresses, out.additionals);
  }
}

/** `a-b-c-d.<ns>.pod.<zone>`: any well-formed address in an existing namespace (`pods insecure`). */
function resolvePod(
  out: Answers,
  question: DnsQuestion,
  labels: readonly string[],
  records: ClusterRecords,
): Answered {
  if (labels.length === 0) return out.done('NOERROR');
  const namespace = labels.at(-1)!;
  if (!records.namespaceExists(namespace)) return out.done('NXDOMAIN');
  if (labels.length === 1) return out.done('NOERROR');
  if (labels.length !== 2) return out.done('NXDOMAIN');
  const address = addressOfDashedLabel(labels[0]!);
  if (address === undefined) return out.done('NXDOMAIN');
  if (question.type === 'A' || question.type === 'AAAA') out.addresses(question.name, [address]);
  return out.done('NOERROR');
}

/** PTR for service and endpoint addresses; every other reverse name is the upstream's. */
function resolveReverse(
  question: DnsQuestion,
  name: string,
  records: ClusterRecords,
  settings: ResolverSettings,
): Resolution {
  const address = addressOfReverseName(name);
  const names = address === undefined ? [] : records.namesOfAddress(address);
  if (names.length === 0) return FORWARD;
  const out = new Answers(settings, question);
  if (question.type === 'PTR') {
    for (const target of names) {
      out.record({ type: 'PTR', name: question.name, ttl: settings.ttl, class: 'IN', data: target });
    }
  }
  return out.done('NOERROR');
}
