/**
 * Whether `JSON.parse` on the Node 24 line may read a member name back wrong: a name of one character
 * that JSON escapes (`"`, `\`, a control character, a lone surrogate) comes back as `\` once any
 * earlier parse in the process met a `\` member after the same members (a V8 bug, nodejs/node#63785;
 * Node 22 and 26 read it right). A property test whose check parses JSON leaves such names out of
 * what it generates, or its verdict depends on what other suites parsed before it.
 */
export const misreadByJsonParse = (name: string): boolean =>
  [...name].length === 1 && JSON.stringify(name) !== `"${name}"`;
