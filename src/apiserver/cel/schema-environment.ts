// The CEL environment of one schema node's rules (apiextensions schema/cel/compilation.go,
// prepareEnvSet): the node's object types registered with their fields, `self` and `oldSelf`
// declared as the node's type (`oldSelf` optional for optionalOldSelf rules), and the converter
// that turns the node's JSON values into values of those types.
import type { Environment } from '@marcbachmann/cel-js';
import { celTypeName, type DeclType } from './decl-types.js';
import { extendEnvironment, newKubernetesEnvironment, parseDuration } from './environment.js';
import { CelObject, type CelObjectClass, RAW_JSON, schemaEqual, ValueConverter } from './values.js';

function collectObjects(type: DeclType | undefined, into: Set<Extract<DeclType, { kind: 'object' }>>): void {
  if (type === undefined) return;
  if (type.kind === 'object') {
    if (into.has(type)) return;
    for (const field of type.fields.values()) collectObjects(field.type, into);
    into.add(type);
  } else if (type.kind === 'list' || type.kind === 'map') collectObjects(type.elem, into);
}

/** The environments of one node's rules and the converter for its values. */
export interface NodeEnvironment {
  /** `self` and `oldSelf` of the node's type. */
  env: Environment;
  /** `oldSelf` optional, for rules with `optionalOldSelf: true`. */
  optionalEnv: () => Environment;
  converter: ValueConverter;
}

/**
 * Registers the object types of `type` and below on `env`, each with its fields and equality;
 * returns the runtime class of each, for a converter.
 */
export function registerObjectTypes(env: Environment, type: DeclType): Map<DeclType, CelObjectClass> {
  const objects = new Set<Extract<DeclType, { kind: 'object' }>>();
  collectObjects(type, objects);
  const classes = new Map<DeclType, CelObjectClass>();
  for (const object of objects) {
    const Class = class extends CelObject {};
    classes.set(object, Class);
    const fields: Record<string, string> = {};
    for (const [name, field] of object.fields) fields[name] = celTypeName(field.type);
    env.registerType(object.name, { ctor: Class, fields });
    env.registerOperator(`${object.name} == ${object.name}`, (a: CelObject, b: CelObject) =>
      schemaEqual(a[RAW_JSON], b[RAW_JSON], object),
    );
    // Objects compare with null, as cel-go's message types do.
    env.registerOperator(`${object.name} == null`, (a: unknown, b: unknown) => a === b);
  }
  return classes;
}

/** Environments declaring `self` and `oldSelf` as `type`, with a converter for its values. */
export function environmentFor(type: DeclType): NodeEnvironment {
  const typesEnv = newKubernetesEnvironment();
  const classes = registerObjectTypes(typesEnv, type);
  const typeName = celTypeName(type);
  const ruleEnv = extendEnvironment(typesEnv);
  ruleEnv.registerVariable('self', typeName);
  ruleEnv.registerVariable('oldSelf', typeName);
  let optionalEnv: Environment | undefined;
  return {
    env: ruleEnv,
    optionalEnv: () => {
      if (optionalEnv === undefined) {
        optionalEnv = extendEnvironment(typesEnv);
        optionalEnv.registerVariable('self', typeName);
        optionalEnv.registerVariable('oldSelf', `optional<${typeName}>`);
      }
      return optionalEnv;
    },
    converter: new ValueConverter(classes, parseDuration),
  };
}
