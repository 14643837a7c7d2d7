// apimachinery's runtime.Convert_Slice_string_To_bool (and its *bool twin): how every boolean
// query parameter decodes. Only absence, "0" and "false" in any case are false; anything else,
// the empty value included, is true (so the Python client's `watch=True` starts a watch).

/** A boolean query parameter as kube-apiserver decodes it. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value !== null && isTrueParameter(value);
}

/** A boolean parameter that may be absent (`*bool`): undefined when it is. */
export function optionalQueryBool(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  return value === null ? undefined : isTrueParameter(value);
}

function isTrueParameter(value: string): boolean {
  return value !== '0' && value.toLowerCase() !== 'false';
}
