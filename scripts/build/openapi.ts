// Writes src/apiserver/openapi/builtin-definitions.generated.json: the Swagger 2.0 definitions of every
// built-in type of Kubernetes 1.33, derived from @kubernetes/client-node's generated models (which track
// the 1.33 spec) plus scripts/build/openapi-facts.json for what those models leave out.
import { writeFileSync } from 'node:fs';
import type { BuiltinDefinitionsFile } from '../../src/apiserver/openapi/schema.js';
import { buildDefinitions } from './openapi/build-definitions.js';
import { CLIENT_PACKAGE, loadClientModels } from './openapi/client-models.js';
import { loadFacts } from './openapi/facts.js';

const KUBERNETES_MINOR = 'v1.33.';
const output = new URL('../../src/apiserver/openapi/builtin-definitions.generated.json', import.meta.url);

const { packageVersion, specVersion, models } = await loadClientModels();
if (!specVersion.startsWith(KUBERNETES_MINOR)) {
  throw new Error(
    `${CLIENT_PACKAGE}@${packageVersion} was generated from ${specVersion}, not ${KUBERNETES_MINOR}x`,
  );
}
const file: BuiltinDefinitionsFile = {
  kubernetesVersion: specVersion,
  source: `${CLIENT_PACKAGE}@${packageVersion}`,
  definitions: buildDefinitions(models, loadFacts()),
};
const text = JSON.stringify(file);
writeFileSync(output, text);
console.log(
  `builtin-definitions.generated.json: ${Object.keys(file.definitions).length} definitions, ${text.length} bytes`,
);
