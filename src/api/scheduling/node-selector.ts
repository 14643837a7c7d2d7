// Node selector terms as kube-scheduler evaluates them (component-helpers nodeaffinity): terms
// are ORed, expressions in a term ANDed; a term with neither expressions nor fields, or one that
// does not parse, matches nothing. matchFields supports only metadata.name with In / NotIn and
// one value.
import { type LabelOperator, type LabelRequirement, newLabelRequirement } from '../selectors/index.js';
import type {
  Node,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  PreferredSchedulingTerm,
} from '../types/core-v1.generated.js';

const OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

type Labels = Readonly<Record<string, string>>;

interface FieldRequirement {
  readonly key: string;
  readonly equal: boolean;
  readonly value: string;
}

/** A parsed term; `undefined` lists mean the term had none of that kind. */
export class ParsedNodeSelectorTerm {
  constructor(
    private readonly labels: readonly LabelRequirement[] | undefined,
    private readonly fields: readonly FieldRequirement[] | undefined,
  ) {}

  matches(nodeLabels: Labels, nodeName: string): boolean {
    if (this.labels === undefined && this.fields === undefined) return false;
    if (this.labels !== undefined) {
      for (const requirement of this.labels) if (!requirement.matches(nodeLabels)) return false;
    }
    if (this.fields !== undefined) {
      for (const requirement of this.fields) {
        const actual = requirement.key === 'metadata.name' ? nodeName : '';
        if ((actual === requirement.value) !== requirement.equal) return false;
      }
    }
    return true;
  }
}

function parseLabelRequirements(expressions: readonly NodeSelectorRequirement[]): LabelRequirement[] {
  return expressions.map((expression) => {
    const operator = OPERATORS[expression.operator];
    if (operator === undefined)
      throw new Error(`${JSON.stringify(expression.operator)} is not a valid node selector operator`);
    return newLabelRequirement(expression.key, operator, expression.values ?? []);
  });
}

function parseFieldRequirements(expressions: readonly NodeSelectorRequirement[]): FieldRequirement[] {
  return expressions.map((expression) => {
    const values = expression.values ?? [];
    if (expression.operator !== 'In' && expression.operator !== 'NotIn') {
      throw new Error(
        `Unsupported value: ${JSON.stringify(expression.operator)}: supported values: "In", "NotIn"`,
      );
    }
    if (values.length !== 1) throw new Error('must have one element');
    return { key: expression.key, equal: expression.operator === 'In', value: values[0]! };
  });
}

/** Parses a term; throws when Kubernetes would report a parse error for it. */
export function parseNodeSelectorTerm(term: NodeSelectorTerm): ParsedNodeSelectorTerm {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  return new ParsedNodeSelectorTerm(
    expressions.length > 0 ? parseLabelRequirements(expressions) : undefined,
    fields.length > 0 ? parseFieldRequirements(fields) : undefined,
  );
}

/** A NodeSelector whose unparsable terms are dropped (LazyErrorNodeSelector). */
export class ParsedNodeSelector {
  readonly terms: readonly ParsedNodeSelectorTerm[];

  constructor(selector: NodeSelector) {
    const terms: ParsedNodeSelectorTerm[] = [];
    for (const term of selector.nodeSelectorTerms ?? []) {
      try {
        terms.push(parseNodeSelectorTerm(term));
      } catch {
        // An invalid term selects nothing.
      }
    }
    this.terms = terms;
  }

  matches(nodeLabels: Labels, nodeName: string): boolean {
    for (const term of this.terms) if (term.matches(nodeLabels, nodeName)) return true;
    return false;
  }
}

const NO_LABELS: Labels = Object.freeze({});

/** The pod's nodeSelector and required node affinity together (nodeaffinity.RequiredNodeAffinity). */
export class RequiredNodeAffinity {
  private readonly nodeSelector: readonly (readonly [string, string])[] | undefined;
  private readonly affinity: ParsedNodeSelector | undefined;

  constructor(pod: Pod) {
    const selector = pod.spec?.nodeSelector;
    this.nodeSelector =
      selector !== undefined && Object.keys(selector).length > 0 ? Object.entries(selector) : undefined;
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    this.affinity =
      required === undefined || required === null ? undefined : new ParsedNodeSelector(required);
  }

  /** Whether the pod has either constraint at all. */
  get isEmpty(): boolean {
    return this.nodeSelector === undefined && this.affinity === undefined;
  }

  matchesLabels(labels: Labels, nodeName: string): boolean {
    if (this.nodeSelector !== undefined) {
      for (const [key, value] of this.nodeSelector) if (labels[key] !== value) return false;
    }
    return this.affinity === undefined || this.affinity.matches(labels, nodeName);
  }

  matchesNode(node: Node): boolean {
    return this.matchesLabels(node.metadata?.labels ?? NO_LABELS, node.metadata?.name ?? '');
  }

  /** A node as the scheduler's cache holds it (its labels and name). */
  matchesNodeInfo(nodeInfo: { readonly labels: Labels; readonly name: string }): boolean {
    return this.matchesLabels(nodeInfo.labels, nodeInfo.name);
  }
}

const requiredMemo = new WeakMap<Pod, RequiredNodeAffinity>();

/** The pod's RequiredNodeAffinity, parsed once per pod object. */
export function requiredNodeAffinityOf(pod: Pod): RequiredNodeAffinity {
  let parsed = requiredMemo.get(pod);
  if (parsed === undefined) {
    parsed = new RequiredNodeAffinity(pod);
    requiredMemo.set(pod, parsed);
  }
  return parsed;
}

export interface WeightedNodeSelectorTerm {
  readonly term: ParsedNodeSelectorTerm;
  readonly weight: number;
}

/** Preferred terms with weight 0 or no requirements dropped; throws on a term that does not parse. */
export function parsePreferredSchedulingTerms(
  terms: readonly PreferredSchedulingTerm[],
): WeightedNodeSelectorTerm[] {
  const parsed: WeightedNodeSelectorTerm[] = [];
  const errors: string[] = [];
  terms.forEach((term, index) => {
    const preference = term.preference;
    const empty =
      (preference?.matchExpressions?.length ?? 0) === 0 && (preference?.matchFields?.length ?? 0) === 0;
    if (term.weight === 0 || empty) return;
    try {
      parsed.push({ term: parseNodeSelectorTerm(preference), weight: term.weight });
    } catch (error) {
      errors.push(`[${index}].preference: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  if (errors.length > 0) throw new Error(errors.join(', '));
  return parsed;
}
