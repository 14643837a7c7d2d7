import { describe, expect, it } from 'vitest';
import {
  fieldValidationDirective,
  fieldValidationOptionErrors,
} from '../../../src/apiserver/field-validation/index.js';
import { StatusError } from '../../../src/apiserver/status.js';

describe('fieldValidationDirective', () => {
  it.each([
    { value: null, directive: 'Warn' },
    { value: undefined, directive: 'Warn' },
    { value: '', directive: 'Warn' },
    { value: 'Strict', directive: 'Strict' },
    { value: 'Warn', directive: 'Warn' },
    { value: 'Ignore', directive: 'Ignore' },
  ])('reads $value as $directive', ({ value, directive }) => {
    expect(fieldValidationDirective(value, 'CreateOptions')).toBe(directive);
    expect(fieldValidationOptionErrors(value)).toEqual([]);
  });

  it('rejects any other value, case included, with the 422 of the request’s options', () => {
    let error: unknown;
    try {
      fieldValidationDirective('strict', 'PatchOptions');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StatusError);
    const body = 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"';
    expect((error as StatusError).toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `PatchOptions.meta.k8s.io "" is invalid: fieldValidation: ${body}`,
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [{ reason: 'FieldValueNotSupported', message: body, field: 'fieldValidation' }],
      },
      code: 422,
    });
  });

  it('gives the field error to combine with other option errors', () => {
    expect(fieldValidationOptionErrors('Loud')).toEqual([
      {
        type: 'FieldValueNotSupported',
        field: 'fieldValidation',
        badValue: 'Loud',
        detail: 'supported values: "", "Ignore", "Strict", "Warn"',
      },
    ]);
  });
});
