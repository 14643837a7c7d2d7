// Printers of flowcontrol.apiserver.k8s.io (API Priority and Fairness).
import type { KubeObject } from '../../api/object.js';
import { compareGoStrings } from '../../api/selectors/go-text.js';
import { int, list, optObj, str } from './access.js';
import { AGE, column, fieldColumn, NAME } from './columns.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

export const flowSchemas: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('PriorityLevel', 'string', 'flowcontrol/v1.PriorityLevelConfigurationReference.name'),
    fieldColumn('MatchingPrecedence', 'string', 'flowcontrol/v1.FlowSchemaSpec.matchingPrecedence'),
    fieldColumn('DistinguisherMethod', 'string', 'flowcontrol/v1.FlowSchemaSpec.distinguisherMethod'),
    AGE,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  row(schema, now) {
    const dangling = list(schema, 'status', 'conditions').find((c) => str(c, 'type') === 'Dangling');
    const distinguisher = optObj(schema, 'spec', 'distinguisherMethod');
    return [
      nameOf(schema),
      str(schema, 'spec', 'priorityLevelConfiguration', 'name'),
      int(schema, 'spec', 'matchingPrecedence'),
      distinguisher === undefined ? '<none>' : str(distinguisher, 'type'),
      ageOf(schema, now),
      dangling === undefined ? '?' : str(dangling, 'status'),
    ];
  },
  // Kubernetes lists flow schemas in the order they are matched: precedence, then name.
  order(schemas: readonly KubeObject[]) {
    return [...schemas].sort(
      (a, b) =>
        int(a, 'spec', 'matchingPrecedence') - int(b, 'spec', 'matchingPrecedence') ||
        compareGoStrings(nameOf(a), nameOf(b)),
    );
  },
};

export const priorityLevelConfigurations: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Type', 'string', 'flowcontrol/v1.PriorityLevelConfigurationSpec.type'),
    fieldColumn(
      'NominalConcurrencyShares',
      'string',
      'flowcontrol/v1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares',
    ),
    fieldColumn('Queues', 'string', 'flowcontrol/v1.QueuingConfiguration.queues'),
    fieldColumn('HandSize', 'string', 'flowcontrol/v1.QueuingConfiguration.handSize'),
    fieldColumn('QueueLengthLimit', 'string', 'flowcontrol/v1.QueuingConfiguration.queueLengthLimit'),
    AGE,
  ],
  row(level, now) {
    // Exempt levels have no limits: their cells read <none>, the limited ones' cells are numbers.
    const limited = optObj(level, 'spec', 'limited');
    const queuing = limited === undefined ? undefined : optObj(limited, 'limitResponse', 'queuing');
    const none = '<none>';
    return [
      nameOf(level),
      str(level, 'spec', 'type'),
      limited === undefined ? none : int(limited, 'nominalConcurrencyShares'),
      queuing === undefined ? none : int(queuing, 'queues'),
      queuing === undefined ? none : int(queuing, 'handSize'),
      queuing === undefined ? none : int(queuing, 'queueLengthLimit'),
      ageOf(level, now),
    ];
  },
};
