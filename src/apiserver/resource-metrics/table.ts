// metrics-server's Table convertor (pkg/api/table.go): `kubectl get nodes.metrics.k8s.io` and
// `podmetrics` print Name, one column per resource (cpu, memory; a pod's summed over its
// containers) and Window.
import type { KubeObject } from '../../api/object.js';
import { Quantity } from '../../api/quantity.js';
import type { KindPrinter, TableColumnDefinition } from '../printers/types.js';

const COLUMNS: readonly TableColumnDefinition[] = Object.freeze([
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
  { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
  { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
  { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
]);

type UsageMap = Record<string, string> | undefined;

function sum(usages: readonly UsageMap[], resource: string): string {
  let total = Quantity.parse('0');
  for (const usage of usages) {
    const value = usage?.[resource];
    if (value !== undefined) total = total.add(Quantity.parse(value));
  }
  return total.toString();
}

function printer(usagesOf: (object: KubeObject) => UsageMap[]): KindPrinter {
  return {
    columns: COLUMNS,
    row: (object) => {
      const usages = usagesOf(object);
      return [
        object.metadata?.name ?? '',
        sum(usages, 'cpu'),
        sum(usages, 'memory'),
        String(object.window ?? ''),
      ];
    },
  };
}

export const NODE_METRICS_PRINTER = printer((object) => [object.usage as UsageMap]);
export const POD_METRICS_PRINTER = printer((object) =>
  ((object.containers as { usage?: Record<string, string> }[] | undefined) ?? []).map((c) => c.usage),
);
