export {
  ApiError,
  errorFromResponse,
  hasStatusCause,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isUnauthorized,
} from './api-error.js';
export { HTTP2_SESSION_MEMORY_MB } from './connection.js';
export { queryString, resourcePath } from './request-url.js';
export { PATCH_CONTENT_TYPES } from './resource-client.js';
export { createRestClient, type RestClientOptions, userAgent } from './rest-client.js';
