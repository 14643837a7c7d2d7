// Upstream: k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go. The handler-chain step
// between impersonation and authorization: long-running requests pass, others wait for a seat of
// their priority level, and the refused get Go's plain-text 429 with Retry-After.
import { sendText } from '../http/respond.js';
import type { ApiRequest, ApiResponse, UserInfo } from '../http/types.js';
import type { RequestInfo } from '../request-info.js';
import { type Classification, type FlowController, TooManyRequests } from './flow-controller.js';
import type { ListWorkEstimator } from './work-estimate.js';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

/** BasicLongRunningRequestCheck's verbs and subresources; watches are tracked for their start. */
const LONG_RUNNING_VERBS = new Set(['proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** A seat held, or 'rejected' when the 429 has been written. */
export type FlowControlOutcome = { readonly release: () => void } | undefined | 'rejected';

export async function admitRequest(
  controller: FlowController,
  work: ListWorkEstimator,
  req: ApiRequest,
  res: ApiResponse,
  user: UserInfo,
  info: RequestInfo,
  query: URLSearchParams,
): Promise<FlowControlOutcome> {
  if (
    info.isResourceRequest &&
    (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  ) {
    return undefined;
  }
  try {
    const admission = await controller.admit(
      user,
      info,
      (onCancel) => req.once('close', onCancel),
      (maxSeats) => work.seats(info, query, maxSeats),
    );
    if (!admission) return undefined;
    setHeaders(res, admission.classification);
    return admission;
  } catch (error) {
    if (!(error instanceof TooManyRequests)) throw error;
    if (res.headersSent || res.writableEnded) return 'rejected';
    setHeaders(res, error.classification);
    res.setHeader('Retry-After', '1');
    sendText(res, 429, `${error.message}\n`);
    return 'rejected';
  }
}

/** The UIDs, not the names: an administrator's names should not tell a client it ranks low. */
function setHeaders(res: ApiResponse, classification: Classification): void {
  if (res.headersSent) return;
  res.setHeader(PRIORITY_LEVEL_UID_HEADER, classification.priorityLevelUid);
  res.setHeader(FLOW_SCHEMA_UID_HEADER, classification.flowSchemaUid);
}
