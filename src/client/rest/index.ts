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
export { queryString, resourcePath } from './request-url.js';
export { PATCH_CONTENT_TYPES } from './resource-client.js';
export { createRestClient, type RestClientOptions, userAgent } from './rest-client.js';
