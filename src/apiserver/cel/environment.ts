// The Kubernetes CEL environment (k8s.io/apiserver/pkg/cel/environment/base.go): the standard
// library with optional types, the strings and sets extensions and Kubernetes' libraries (lists,
// regex, URLs, quantities, IP addresses and CIDRs, named formats, semantic versions) and two-variable comprehensions. Shared by CRD rules and, later, ValidatingAdmissionPolicy; callers
// clone it and declare their variables on the clone.
import { Environment } from '@marcbachmann/cel-js';
import { registerTwoVariableComprehensions } from './library/comprehensions.js';
import { registerFormat } from './library/format.js';
import { registerIP } from './library/ip.js';
import { registerLists } from './library/lists.js';
import { registerQuantity } from './library/quantity.js';
import { registerRegex } from './library/regex.js';
import { registerSemver } from './library/semver.js';
import { registerSets } from './library/sets.js';
import { registerStrings } from './library/strings.js';
import { registerUrls } from './library/urls.js';

// Mixed list and map literals are refused after type-checking (literals.ts), where format()'s
// argument list may mix types as upstream allows.
const OPTIONS = {
  enableOptionalTypes: true,
  homogeneousAggregateLiterals: false,
  unlistedVariablesAreDyn: false,
};

let base: Environment | undefined;

/** The shared base environment; it is frozen once cloned, so callers always clone. */
export function kubernetesEnvironment(): Environment {
  if (base === undefined) {
    const env = new Environment(OPTIONS);
    registerLists(env);
    registerRegex(env);
    registerStrings(env);
    registerSets(env);
    registerUrls(env);
    registerQuantity(env);
    registerIP(env);
    registerFormat(env);
    registerTwoVariableComprehensions(env);
    registerSemver(env);
    base = env;
  }
  return base;
}

/** A fresh environment on the Kubernetes base, ready for variables and types of its own. */
export function newKubernetesEnvironment(): Environment {
  return kubernetesEnvironment().clone(OPTIONS);
}

/** A child of `env` (which is frozen from then on) with the same options. */
export function extendEnvironment(env: Environment): Environment {
  return env.clone(OPTIONS);
}

let durationProgram: ((context: { text: string }) => unknown) | undefined;

/** A duration value from Go duration text (`1h30m`), as the CEL library represents durations. */
export function parseDuration(text: string): unknown {
  if (durationProgram === undefined) {
    const env = newKubernetesEnvironment();
    env.registerVariable('text', 'string');
    durationProgram = env.parse('duration(text)');
  }
  return durationProgram({ text });
}
