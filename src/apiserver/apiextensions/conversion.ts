// Conversion between the versions of a custom resource (apiextensions-apiserver's
// pkg/apiserver/conversion): `None` rewrites apiVersion only. `Webhook` is the seam the conversion
// webhooks fill in; until then an object that needs converting is refused as upstream refuses a
// webhook that cannot be reached, instead of being passed through unconverted.
import type { KubeObject } from '../../api/object.js';
import { internalError } from '../status.js';

/** Converts `object` to `apiVersion` (a version of the same group); returns it as is when equal. */
export type CustomResourceConverter = (object: KubeObject, apiVersion: string) => KubeObject;

export function customResourceConverter(strategy: string, kind: string): CustomResourceConverter {
  if (strategy !== 'Webhook') {
    return (object, apiVersion) => {
      object.apiVersion = apiVersion;
      return object;
    };
  }
  return (object, apiVersion) => {
    if (object.apiVersion === apiVersion) return object;
    throw internalError(
      new Error(
        `conversion webhook for ${apiVersion}, Kind=${kind} failed: conversion webhooks are not served yet`,
      ),
    );
  };
}
