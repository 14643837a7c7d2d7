// apps/v1 DaemonSet facts shared by the API server's strategy and the DaemonSet controller
// (k8s.io/api/apps/v1 DeprecatedTemplateGeneration, extensions.DaemonSetTemplateGenerationKey).

/** Where apps/v1 carries the internal spec.templateGeneration the API server keeps. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** The template generation a daemon pod was made from. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
