// PodLogOptions (`kubectl logs`): decoded from query parameters as kube-apiserver and the
// kubelet decode them, validated by the same rules, and re-encoded for the kubelet.

import { type FieldError, fieldForbidden, fieldInvalid } from './selectors/field-errors.js';
import { goQuote } from './selectors/go-text.js';

export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  sinceSeconds?: number;
  /** RFC 3339, second precision. */
  sinceTime?: string;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
  /** `All`, `Stdout` or `Stderr` (PodLogsQuerySplitStreams, off in 1.33). */
  stream?: string;
}

/** Go's query conversion of a bool: anything but `0`, `f` and `false` (any case) is true. */
function boolParam(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return !(value === '0' || /^(f|false)$/i.test(value));
}

/** An optional int64 parameter; Go's strconv.ParseInt text when it is not one. */
function intParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^[+-]?\d+$/.test(value))
    throw new Error(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed))
    throw new Error(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return parsed;
}

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

/** Decodes the options of a pods/log request; throws the decoding error's text. */
export function parsePodLogQuery(query: URLSearchParams): PodLogOptions {
  const options: PodLogOptions = {
    follow: boolParam(query, 'follow'),
    previous: boolParam(query, 'previous'),
    timestamps: boolParam(query, 'timestamps'),
    insecureSkipTLSVerifyBackend: boolParam(query, 'insecureSkipTLSVerifyBackend'),
  };
  const container = query.get('container');
  if (container) options.container = container;
  const sinceSeconds = intParam(query, 'sinceSeconds');
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  const tailLines = intParam(query, 'tailLines');
  if (tailLines !== undefined) options.tailLines = tailLines;
  const limitBytes = intParam(query, 'limitBytes');
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  const sinceTime = query.get('sinceTime');
  if (sinceTime !== null && sinceTime !== '' && sinceTime !== 'null') {
    if (!RFC3339.test(sinceTime) || Number.isNaN(Date.parse(sinceTime))) {
      throw new Error(
        `parsing time ${goQuote(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(sinceTime)} as "2006"`,
      );
    }
    // metav1.Time keeps whole seconds.
    options.sinceTime = new Date(Math.floor(Date.parse(sinceTime) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z');
  }
  const stream = query.get('stream');
  if (stream) options.stream = stream;
  return options;
}

/** ValidatePodLogOptions of Kubernetes 1.33. */
export function validatePodLogOptions(options: PodLogOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) {
    errors.push(fieldInvalid('tailLines', options.tailLines, 'must be greater than or equal to 0'));
  }
  if (options.limitBytes !== undefined && options.limitBytes < 1) {
    errors.push(fieldInvalid('limitBytes', options.limitBytes, 'must be greater than 0'));
  }
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) {
    errors.push(fieldForbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
    errors.push(fieldInvalid('sinceSeconds', options.sinceSeconds, 'must be greater than 0'));
  }
  return errors;
}

/** The query kube-apiserver sends to the kubelet's /containerLogs (only what is set). */
export function kubeletLogQuery(options: PodLogOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.follow) query.set('follow', 'true');
  if (options.previous) query.set('previous', 'true');
  if (options.timestamps) query.set('timestamps', 'true');
  if (options.sinceSeconds !== undefined) query.set('sinceSeconds', String(options.sinceSeconds));
  if (options.sinceTime !== undefined) query.set('sinceTime', options.sinceTime);
  if (options.tailLines !== undefined) query.set('tailLines', String(options.tailLines));
  if (options.limitBytes !== undefined) query.set('limitBytes', String(options.limitBytes));
  return query;
}
