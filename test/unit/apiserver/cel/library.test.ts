// The Kubernetes CEL environment: the standard library with optional types, the strings and
// sets extensions and Kubernetes' lists, regex, URL and quantity libraries.
import { describe, expect, it } from 'vitest';
import { newKubernetesEnvironment } from '../../../../src/apiserver/cel/environment.js';

function evaluate(expression: string): unknown {
  return newKubernetesEnvironment().evaluate(expression);
}

describe('Kubernetes CEL library', () => {
  const cases: [string, unknown][] = [
    // lists
    ['[1, 2, 2, 3].isSorted()', true],
    ['[3, 1].isSorted()', false],
    ['["a", "b"].isSorted()', true],
    ['[1, 2, 3].sum()', 6n],
    ['[1.5, 2.5].sum()', 4],
    ['[].sum() == 0', true],
    ['[3, 1, 2].min()', 1n],
    ['[3, 1, 2].max()', 3n],
    ['["b", "a"].min()', 'a'],
    ['[1, 2, 3, 2].indexOf(2)', 1n],
    ['[1, 2, 3, 2].lastIndexOf(2)', 3n],
    ['[1, 2].indexOf(5)', -1n],
    // regex
    ['"abc 123".find("[0-9]+")', '123'],
    ['"abc".find("[0-9]+")', ''],
    ['"a1b2c3".findAll("[0-9]")', ['1', '2', '3']],
    ['"a1b2c3".findAll("[0-9]", 2)', ['1', '2']],
    ['"abc".matches("^a")', true],
    ['"ABC".find("(?i)b")', 'B'],
    ['"k=v".find("(?P<key>[a-z]+)=")', 'k='],
    // strings extension
    ['"hello".charAt(1)', 'e'],
    ['"hello".charAt(5)', ''],
    ['"hello".indexOf("l")', 2n],
    ['"hello".lastIndexOf("l")', 3n],
    ['"Hello".lowerAscii()', 'hello'],
    ['"Hello".upperAscii()', 'HELLO'],
    ['"a-b-c".replace("-", "+")', 'a+b+c'],
    ['"a-b-c".replace("-", "+", 1)', 'a+b-c'],
    ['"a,b".split(",")', ['a', 'b']],
    ['"hello".substring(1, 3)', 'el'],
    ['"  x ".trim()', 'x'],
    ['["a", "b"].join("-")', 'a-b'],
    ['strings.quote("a\\"b")', '"a\\"b"'],
    ['"%s has %d items, %.2f%% done".format(["list", 3, 42.5])', 'list has 3 items, 42.50% done'],
    ['"%s and %s".format([[1, 2], {"b": true, "a": "x"}])', '[1, 2] and {"a": "x", "b": true}'],
    ['"%x %X %o %b".format([255, "hi", 8, 5])', 'ff 6869 10 101'],
    ['"%e".format([1234.5])', '1.234500e+03'],
    // two-variable comprehensions
    ['[1, 2].all(i, v, v > i)', true],
    ['[1, 2].exists(i, v, i == 1 && v == 2)', true],
    ['[1, 2, 2].existsOne(i, v, v == 2)', false],
    ['{"a": 1, "b": 2}.all(k, v, k.size() == 1 && v > 0)', true],
    ['[1, 2].transformList(i, v, v * 2)', [2n, 4n]],
    ['[1, 2, 3].transformList(i, v, v > 1, v * i)', [2n, 6n]],
    ['{"a": 1}.transformMap(k, v, v + 1)', new Map([['a', 2n]])],
    ['{"a": 1}.transformMapEntry(k, v, {k + "x": v})', new Map([['ax', 1n]])],
    // sets extension
    ['sets.contains([1, 2, 3], [1, 3])', true],
    ['sets.contains([1, 2], [4])', false],
    ['sets.equivalent([1, 2], [2, 1, 1])', true],
    ['sets.intersects([1, 2], [2, 5])', true],
    ['sets.intersects([1], [5])', false],
    // optional types
    ['optional.of(1).hasValue()', true],
    ['optional.none().orValue(5)', 5n],
    ['{"a": 1}.?b.orValue(2)', 2n],
    ['{"a": 1}[?"a"].value()', 1n],
    // urls
    ['isURL("https://example.com:8443/a/b?x=1&x=2")', true],
    ['isURL("not a url")', false],
    ['isURL("/absolute/path")', true],
    ['url("https://example.com:8443/a/b").getScheme()', 'https'],
    ['url("https://example.com:8443/a/b").getHost()', 'example.com:8443'],
    ['url("https://example.com:8443/a/b").getHostname()', 'example.com'],
    ['url("https://example.com:8443/a/b").getPort()', '8443'],
    ['url("https://[::1]:80/").getHostname()', '::1'],
    ['url("https://example.com/a/b?x=1").getEscapedPath()', '/a/b'],
    ['url("https://example.com/?x=1&x=2&y=3").getQuery()["x"]', ['1', '2']],
    // quantity
    ['isQuantity("1.5Gi")', true],
    ['isQuantity("1.5Gix")', false],
    ['quantity("1Gi").isGreaterThan(quantity("1G"))', true],
    ['quantity("500m").isLessThan(quantity("1"))', true],
    ['quantity("1") == quantity("1000m")', true],
    ['quantity("1k").compareTo(quantity("999"))', 1n],
    ['quantity("1.5").isInteger()', false],
    ['quantity("2k").asInteger()', 2000n],
    ['quantity("500m").asApproximateFloat()', 0.5],
    ['quantity("-1").sign()', -1n],
    ['quantity("1").add(quantity("500m")) == quantity("1500m")', true],
    ['quantity("1").add(2) == quantity("3")', true],
    ['quantity("1").sub(quantity("500m")) == quantity("500m")', true],
    ['quantity("5").sub(2) == quantity("3")', true],
    // ip and cidr
    ['isIP("1.2.3.4")', true],
    ['isIP("01.2.3.4")', false],
    ['isIP("::ffff:1.2.3.4")', false],
    ['isIP("fe80::1%eth0")', false],
    ['ip("2001:db8::1").family()', 6n],
    ['string(ip("2001:0db8:0:0::1"))', '2001:db8::1'],
    ['string(ip("1:0:0:1:0:0:0:1"))', '1:0:0:1::1'],
    ['ip.isCanonical("2001:db8::1")', true],
    ['ip.isCanonical("2001:DB8::1")', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("::1").isLoopback()', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("8.8.8.8").isGlobalUnicast()', true],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("1.2.3.4") == ip("1.2.3.4")', true],
    ['isCIDR("10.0.0.0/8")', true],
    ['isCIDR("10.0.0.0/33")', false],
    ['cidr("10.0.0.0/8").containsIP("10.1.2.3")', true],
    ['cidr("10.0.0.0/8").containsIP(ip("11.1.2.3"))', false],
    ['cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', true],
    ['cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))', false],
    ['string(cidr("10.1.2.3/8").masked())', '10.0.0.0/8'],
    ['cidr("10.1.2.3/8").prefixLength()', 8n],
    ['string(cidr("10.1.2.3/8").ip())', '10.1.2.3'],
    // semver
    ['isSemver("1.2.3")', true],
    ['isSemver("1.2.3-alpha.1+build.5")', true],
    ['isSemver("v1.2")', false],
    ['isSemver("v1.2", true)', true],
    ['isSemver("01.2.3")', false],
    ['isSemver("01.02.3", true)', true],
    ['isSemver("1.0-alpha", true)', false],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
    ['semver("v2.1", true).patch()', 0n],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.2.3").compareTo(semver("2.0.0"))', -1n],
    ['semver("1.2.3").isGreaterThan(semver("0.1.2"))', true],
    ['semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', true],
    ['semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))', true],
    ['semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))', true],
    ['semver("1.0.0+a") == semver("1.0.0+b")', true],
    // named formats
    ['format.dns1123Label().validate("my-name").hasValue()', false],
    [
      'format.dns1123Label().validate("My_Name").value()',
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['format.named("uuid").value().validate("nope").value()', ['does not match the UUID format']],
    ['format.named("bogus").hasValue()', false],
    ['format.dns1123LabelPrefix().validate("abc-").hasValue()', false],
    ['format.date().validate("2020-02-30").value()', ['invalid date']],
    ['format.datetime().validate("2020-02-03T01:02:03Z").hasValue()', false],
    ['format.byte().validate("not base64!").value()', ['invalid base64']],
  ];
  it.each(cases)('%s', (expression, expected) => {
    expect(evaluate(expression)).toEqual(expected);
  });

  const failures: [string, string][] = [
    ['[].min()', 'min called on empty list'],
    ['quantity("1.5").asInteger()', 'cannot convert value to integer'],
    ['url("not a url")', 'URL parse error during conversion from string'],
    ['ip("300.1.1.1")', 'parse error during conversion from string'],
    ['cidr("10.0.0.0")', 'network address parse error during conversion from string'],
    ['semver("Three")', 'No Major.Minor.Patch elements found'],
    ['"%d".format([1.5])', 'decimal clause can only be used on integers, was given double'],
    ['"%s %s".format(["a"])', 'index 1 out of range'],
  ];
  it.each(failures)('%s fails: %s', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });

  it('has no string reverse before strings version 3', () => {
    expect(newKubernetesEnvironment().check('"abc".reverse() == "cba"').valid).toBe(false);
  });

  it('type-checks library calls', () => {
    const env = newKubernetesEnvironment();
    expect(env.check('[1, 2].sum() + 1').type).toBe('int');
    expect(env.check('quantity("1").isInteger()').type).toBe('bool');
    expect(env.check('[1, 2].indexOf("a")').valid).toBe(false);
    expect(env.check('[1, 2].transformList(i, v, v + "a")').valid).toBe(false);
    expect(env.check('{"a": 1}.transformMap(k, v, k)').type).toBe('map<string, string>');
  });
});
