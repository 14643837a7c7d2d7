import { describe, expect, it } from 'vitest';
import { negotiateOpenAPIV2 } from '../../../src/apiserver/openapi/protobuf/negotiate.js';

describe('negotiateOpenAPIV2', () => {
  it('answers kubectl and client-go (the @v1.0 name) and the newer .v1.0 name with protobuf', () => {
    expect(negotiateOpenAPIV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenAPIV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('protobuf');
  });

  it('answers JSON, wildcards and a missing header with JSON', () => {
    expect(negotiateOpenAPIV2('application/json')).toBe('json');
    expect(negotiateOpenAPIV2('*/*')).toBe('json');
    expect(negotiateOpenAPIV2('application/*')).toBe('json');
    expect(negotiateOpenAPIV2(undefined)).toBe('json');
    expect(negotiateOpenAPIV2('')).toBe('json');
  });

  it('takes clauses by quality, then specificity', () => {
    expect(
      negotiateOpenAPIV2(
        'application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      ),
    ).toBe('protobuf');
    expect(negotiateOpenAPIV2('*/*, application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe(
      'protobuf',
    );
    expect(negotiateOpenAPIV2('text/html, application/json;q=0.9')).toBe('json');
  });

  it('finds nothing for other media types', () => {
    expect(negotiateOpenAPIV2('application/yaml')).toBeUndefined();
    expect(negotiateOpenAPIV2('application/vnd.kubernetes.protobuf')).toBeUndefined();
    expect(negotiateOpenAPIV2('text/*')).toBeUndefined();
  });
});
