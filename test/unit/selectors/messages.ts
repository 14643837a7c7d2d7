// Kubernetes' validation texts, spelled out once so the tables below stay readable.
export const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const NAME_PART_RULE = `name part ${NAME_RULE}`;
export const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
export const PREFIX_RULE =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const THREE_PARTS_RULE = `a qualified name ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
export const OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** The message of the SelectorError that `run` throws; fails the test if it throws nothing else. */
export function selectorErrorMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'SelectorError') return error.message;
    throw error;
  }
  throw new Error('expected a SelectorError, nothing was thrown');
}
