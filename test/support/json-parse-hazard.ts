/**
 * Whether `JSON.parse` on the Node 24 line may read a member name back wrong: a name of one character
 * that JSON escapes (`"`, `\`, a control character, a lone surrogate) comes back as `\` once any
 * earlier parse in the process met a `\` member after the same members (a V8 bug, nodejs/node#63785;
 * Node 22 and 26 read it right). A property test whose check parses JSON leaves such names out of
 * what it generates, or its verdict depends on what other suites parsed before it.
 */
export const misreadByJsonParse = (name: string): boolean =>
  [...name].length === 1 && JSON.stringify(name) !== `"${name}"`;

/**
 * Member names written with one escape, and what they mean: the names the JSON.parse bug reads as `\`
 * once an object at the same place had a member named `\`. `first` is a plain name that goes before
 * each, distinct per case, so that the two members sit where the bug looks.
 */
export const oneEscapeNames: readonly { readonly escaped: string; readonly name: string; readonly first: string }[] = [
  ['\\u540d', '名'],
  ['\\t', '\t'],
  ['\\"', '"'],
].map(([escaped, name]) => ({
  escaped: escaped!,
  name: name!,
  first: `names_${escaped!.length}_${name!.charCodeAt(0)}`,
}));
