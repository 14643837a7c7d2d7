// Printers of the policy group.
import { at, int } from './access.js';
import { AGE, column, NAME } from './columns.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

/** IntOrString.String(), or N/A when the field is not set. */
function intOrString(value: unknown): string {
  if (typeof value === 'number') return String(Math.trunc(value));
  if (typeof value === 'string') return value;
  return 'N/A';
}

export const podDisruptionBudgets: KindPrinter = {
  columns: [
    NAME,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE,
  ],
  row(pdb, now) {
    return [
      nameOf(pdb),
      intOrString(at(pdb, 'spec', 'minAvailable')),
      intOrString(at(pdb, 'spec', 'maxUnavailable')),
      int(pdb, 'status', 'disruptionsAllowed'),
      ageOf(pdb, now),
    ];
  },
};
