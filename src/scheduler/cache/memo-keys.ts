// Canonical strings for selectors, label sets and affinity terms, so per-node results computed
// for one pod can be reused by the next pod with equal terms (see NodeInfo.memo).
import type { LabelSelector } from '../../api/selectors/index.js';
import type { AffinityTerm } from './affinity-term.js';

const selectorKeys = new WeakMap<LabelSelector, string>();
const termKeys = new WeakMap<AffinityTerm, string>();
const labelKeys = new WeakMap<object, string>();

export function selectorKey(selector: LabelSelector): string {
  let key = selectorKeys.get(selector);
  if (key === undefined) {
    key = selector.selectsNothing ? '<nothing>' : `{${selector.toString()}}`;
    selectorKeys.set(selector, key);
  }
  return key;
}

export function affinityTermKey(term: AffinityTerm): string {
  let key = termKeys.get(term);
  if (key === undefined) {
    key = `${[...term.namespaces].sort().join(',')}|${selectorKey(term.namespaceSelector)}|${selectorKey(term.selector)}|${term.topologyKey}`;
    termKeys.set(term, key);
  }
  return key;
}

export function labelsKey(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return '';
  let key = labelKeys.get(labels);
  if (key === undefined) {
    key = Object.keys(labels)
      .sort()
      .map((name) => `${name}=${labels[name]}`)
      .join(',');
    labelKeys.set(labels, key);
  }
  return key;
}
