// Why each node was turned down (framework.NodeToStatus). Nodes never examined share one status:
// by default UnschedulableAndUnresolvable without reasons; after a PreFilter rejection, that
// rejection; after a PreFilter narrowed the nodes, "didn't satisfy plugin(s)".
import type { NodeInfo } from '../cache/node-info.js';
import { Code, Status } from './status.js';

export class NodeToStatus {
  private readonly statuses = new Map<string, Status>();
  absentNodesStatus: Status;

  constructor(absentNodesStatus: Status = new Status(Code.UnschedulableAndUnresolvable)) {
    this.absentNodesStatus = absentNodesStatus;
  }

  get(nodeName: string): Status {
    return this.statuses.get(nodeName) ?? this.absentNodesStatus;
  }

  set(nodeName: string, status: Status): void {
    this.statuses.set(nodeName, status);
  }

  /** How many nodes have a status of their own. */
  get size(): number {
    return this.statuses.size;
  }

  forEachExplicit(visit: (nodeName: string, status: Status) => void): void {
    for (const [name, status] of this.statuses) visit(name, status);
  }

  /** The nodes whose status (their own or the absent one) has `code`, in `nodes` order. */
  nodesForStatusCode(nodes: readonly NodeInfo[], code: Code): NodeInfo[] {
    if (this.absentNodesStatus.code !== code) {
      const result: NodeInfo[] = [];
      for (const node of nodes) if (this.statuses.get(node.name)?.code === code) result.push(node);
      return result;
    }
    return nodes.filter((node) => this.get(node.name).code === code);
  }
}
