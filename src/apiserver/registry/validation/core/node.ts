// Nodes: names, taints (reported under metadata.taints, as Kubernetes does), resources, pod CIDRs.
import type { KubeObject } from '../../../../api/object.js';
import { goQuote } from '../../../../api/selectors/go-text.js';
import { type FieldError, fieldForbidden, fieldInvalid, indexPath } from '../../../../api/selectors/index.js';
import { GoRendered } from '../go-rendered.js';
import { isIPv4, parseCidrSloppy, validateCidr } from '../ip.js';
import { fieldsOf, type JsonObject, objectsOf, stringOf, stringsOf } from '../json.js';
import { isValidLabelValue, nameIsDnsSubdomain } from '../names.js';
import {
  fieldDuplicate,
  validateLabelName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { validateTaintEffect } from '../pod/scheduling.js';
import { resourceListOf, validateResourceQuantityValue } from '../resources.js';

function goTaint(taint: JsonObject): GoRendered {
  return new GoRendered(
    `core.Taint{Key:${goQuote(stringOf(taint.key))}, Value:${goQuote(stringOf(taint.value))}, ` +
      `Effect:${goQuote(stringOf(taint.effect))}, TimeAdded:(*v1.Time)(nil)}`,
  );
}

function validateTaints(taints: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  objectsOf(taints).forEach((taint, index) => {
    const itemPath = indexPath(path, index);
    const key = stringOf(taint.key);
    const value = stringOf(taint.value);
    const effect = stringOf(taint.effect);
    errors.push(...validateLabelName(key, `${itemPath}.key`));
    const problems = isValidLabelValue(value);
    if (problems.length > 0) errors.push(fieldInvalid(`${itemPath}.value`, value, problems.join(';')));
    errors.push(...validateTaintEffect(effect, false, `${itemPath}.effect`));
    if (seen.get(effect)?.has(key)) {
      const duplicate = fieldDuplicate(itemPath, goTaint(taint));
      duplicate.detail = 'taints must be unique by key and effect pair';
      errors.push(duplicate);
      return;
    }
    if (!seen.has(effect)) seen.set(effect, new Set());
    seen.get(effect)!.add(key);
  });
  return errors;
}

function validateResources(node: KubeObject): FieldError[] {
  const status = fieldsOf(node.status);
  const errors: FieldError[] = [];
  for (const key of ['capacity', 'allocatable'] as const) {
    for (const [name, quantity] of resourceListOf(status[key])) {
      errors.push(...validateResourceQuantityValue(name, quantity, `status.${key}.${name}`));
    }
  }
  return errors;
}

/** ValidateNode. */
export function validateNode(node: KubeObject): FieldError[] {
  const spec = fieldsOf(node.spec);
  const errors = validateObjectMeta(node.metadata, { namespaced: false, name: nameIsDnsSubdomain });
  errors.push(...validateTaints(spec.taints, 'metadata.taints'));
  errors.push(...validateResources(node));
  const cidrs = stringsOf(spec.podCIDRs);
  cidrs.forEach((cidr, index) => {
    errors.push(...validateCidr(indexPath('spec.podCIDRs', index), cidr));
  });
  if (cidrs.length > 1) {
    const parsed = cidrs.map(parseCidrSloppy);
    const v4 = parsed.filter((cidr) => cidr !== undefined && isIPv4(cidr.ip)).length;
    if (v4 === 0 || v4 === cidrs.length || parsed.includes(undefined) || cidrs.length > 2) {
      errors.push(
        fieldInvalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'),
      );
    }
    const seen = new Set<string>();
    cidrs.forEach((cidr, index) => {
      if (seen.has(cidr)) errors.push(fieldDuplicate(indexPath('spec.podCIDRs', index), cidr));
      seen.add(cidr);
    });
  }
  return errors;
}

/** ValidateNodeUpdate (names are not re-validated on update). */
export function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const spec = fieldsOf(node.spec);
  const oldSpec = fieldsOf(old.spec);
  const errors = validateObjectMetaUpdate(node.metadata, old.metadata);
  errors.push(...validateResources(node));
  const addresses = new Set<string>();
  objectsOf(fieldsOf(node.status).addresses).forEach((address, index) => {
    const key = `${stringOf(address.type)}/${stringOf(address.address)}`;
    if (addresses.has(key)) {
      errors.push(
        fieldDuplicate(
          indexPath('status.addresses', index),
          new GoRendered(
            `core.NodeAddress{Type:${goQuote(stringOf(address.type))}, Address:${goQuote(stringOf(address.address))}}`,
          ),
        ),
      );
    }
    addresses.add(key);
  });
  const oldCidrs = stringsOf(oldSpec.podCIDRs);
  const newCidrs = stringsOf(spec.podCIDRs);
  const cidrMessage = 'node updates may not change podCIDR except from "" to valid';
  if (oldCidrs.length > 0) {
    if (oldCidrs.length !== newCidrs.length) errors.push(fieldForbidden('spec.podCIDRs', cidrMessage));
    else
      oldCidrs.forEach((cidr, index) => {
        if (cidr !== newCidrs[index]) errors.push(fieldForbidden('spec.podCIDRs', cidrMessage));
      });
  }
  const oldProvider = stringOf(oldSpec.providerID);
  if (oldProvider !== '' && oldProvider !== stringOf(spec.providerID)) {
    errors.push(
      fieldForbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'),
    );
  }
  errors.push(...validateTaints(spec.taints, 'metadata.taints'));
  if (stringOf(spec.externalID) !== stringOf(oldSpec.externalID))
    errors.push(fieldForbidden('spec.externalID', 'may not be updated'));
  return errors;
}
