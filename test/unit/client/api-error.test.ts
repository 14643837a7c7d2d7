import { describe, expect, it } from 'vitest';
import {
  ApiError,
  errorFromResponse,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
} from '../../../src/client/rest/api-error.js';

const status = (code: number, reason: string, message = 'm') =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
    message,
  });

describe('errorFromResponse', () => {
  it('carries the Status the server sent', () => {
    const error = errorFromResponse(
      404,
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'pods "x" not found',
        reason: 'NotFound',
        details: { name: 'x', kind: 'pods' },
        code: 404,
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.reason, error.message]).toEqual([404, 'NotFound', 'pods "x" not found']);
    expect(error.details).toEqual({ name: 'x', kind: 'pods' });
    expect(error.status.kind).toBe('Status');
  });

  it('takes the HTTP code when the Status has none', () => {
    expect(errorFromResponse(409, JSON.stringify({ kind: 'Status', reason: 'Conflict' })).code).toBe(409);
  });

  it('makes up a Status for other bodies as client-go does', () => {
    const request = { method: 'GET', group: 'apps', resource: 'deployments', name: 'web' };
    const notFound = errorFromResponse(404, '404 page not found\n', request);
    expect(notFound.reason).toBe('NotFound');
    expect(notFound.message).toBe(
      'the server could not find the requested resource (get deployments.apps web)',
    );
    expect(notFound.details?.causes).toEqual([
      { reason: 'UnexpectedServerResponse', message: '404 page not found' },
    ]);
    const created = errorFromResponse(409, 'dup', { method: 'POST', group: '', resource: 'pods', name: '' });
    expect([created.reason, created.message]).toEqual([
      'AlreadyExists',
      'the server reported a conflict (post pods)',
    ]);
    expect(errorFromResponse(403, 'go away').message).toBe('go away');
    expect(errorFromResponse(502, 'bad gateway').message).toBe(
      'an error on the server ("bad gateway") has prevented the request from succeeding',
    );
    expect(errorFromResponse(502, '').reason).toBe('InternalError');
    const teapot = errorFromResponse(418, '');
    expect([teapot.reason, teapot.message]).toEqual([
      '',
      'the server responded with the status code 418 but did not return more information',
    ]);
  });
});

describe('predicates', () => {
  it('match by reason, and by code when the reason is unknown', () => {
    expect(isNotFound(errorFromResponse(404, status(404, 'NotFound')))).toBe(true);
    expect(isNotFound(errorFromResponse(404, status(404, 'SomethingNew')))).toBe(true);
    // A known reason other than NotFound on a 404 is not "not found".
    expect(isNotFound(errorFromResponse(404, status(404, 'Forbidden')))).toBe(false);
    expect(isAlreadyExists(errorFromResponse(409, status(409, 'AlreadyExists')))).toBe(true);
    expect(isConflict(errorFromResponse(409, status(409, 'AlreadyExists')))).toBe(false);
    expect(isConflict(errorFromResponse(409, status(409, 'Conflict')))).toBe(true);
    expect(isForbidden(errorFromResponse(403, status(403, 'Forbidden')))).toBe(true);
    expect(isInvalid(errorFromResponse(422, status(422, 'Invalid')))).toBe(true);
    expect(isNotFound(new Error('NotFound'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it('isGone covers 410, Expired and Gone', () => {
    expect(isGone(errorFromResponse(410, status(410, 'Expired')))).toBe(true);
    expect(isGone(errorFromResponse(410, status(410, 'Gone')))).toBe(true);
    expect(isGone(errorFromResponse(410, 'gone'))).toBe(true);
    expect(isGone(errorFromResponse(500, status(500, 'Expired')))).toBe(true);
    expect(isGone(errorFromResponse(404, status(404, 'NotFound')))).toBe(false);
  });
});
