// The facts about Kubernetes 1.33's OpenAPI definitions that @kubernetes/client-node's models do not
// carry, read from scripts/build/openapi-facts.json. They were taken from the definitions
// kube-apiserver 1.33 publishes (and apimachinery's meta/v1 types for /api and /apis documents).
import { readFileSync } from 'node:fs';
import type { SchemaObject } from '../../../src/apiserver/openapi/schema.js';

export interface OpenAPIFacts {
  /**
   * Every definition the client package provides, by Go package (definition name minus its last
   * segment), with the API group its kinds belong to. The package only knows version + kind.
   */
  packages: Record<string, { group?: string; types: string[] }>;
  /** `x-kubernetes-*` extensions of properties, by definition then property name. */
  fieldExtensions: Record<string, Record<string, Partial<SchemaObject>>>;
  /** `x-kubernetes-*` extensions of whole definitions (map-type of atomic structs, unions). */
  definitionExtensions: Record<string, Partial<SchemaObject>>;
  /**
   * Properties whose innermost schema is a reference to a definition the package inlines as a
   * plain type (Quantity as string, RawExtension and JSON as `any`, ...), by definition then property.
   */
  fieldRefs: Record<string, Record<string, string>>;
  /** Definitions with `apiVersion` and `kind` properties that are references to objects, not kinds. */
  notKinds: string[];
  /** The group versions registered in the scheme: DeleteOptions and WatchEvent carry a GVK for each. */
  everyGroupVersion: string[];
}

export function loadFacts(): OpenAPIFacts {
  return JSON.parse(readFileSync(new URL('../openapi-facts.json', import.meta.url), 'utf8')) as OpenAPIFacts;
}
