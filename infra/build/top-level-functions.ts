/**
 * An esbuild plugin for the Lambda bundles: every arrow function at a module's top level is written
 * as a function expression before bundling. V8 compiles an ES module's top-level arrow functions
 * about three times slower than functions (it cannot preparse them lazily the way it does functions),
 * and compiling is most of what the gateway's own code adds to a cold start: the chat function's init
 * chunk took 7.6 ms to compile with its arrows and 4.9 ms with functions. The code is written with
 * arrows; the bundle is what V8 reads.
 *
 * Only arrows outside every function are rewritten, and only those that do not read `this`,
 * `arguments`, `super` or `new.target`, which an arrow takes from where it is written: at a module's
 * top level none of them means anything an arrow's caller could change. Nested arrows are left alone
 * (esbuild's own lowering of every arrow moves `this` above `super()` in derived constructors).
 */
import { readFile } from 'node:fs/promises';
import { Parser, type Node, type Options, type Token } from 'acorn';
import { transform, type Plugin } from 'esbuild';

interface ArrowNode extends Node {
  readonly async: boolean;
  readonly expression: boolean;
  readonly params: Node[];
  readonly body: Node;
}

interface ClassMember extends Node {
  readonly computed?: boolean;
  readonly key: Node;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** The AST nodes directly below `node`. */
const childrenOf = (node: Node): Node[] => {
  const children: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'range') continue;
    for (const item of Array.isArray(value) ? value : [value]) if (isNode(item)) children.push(item);
  }
  return children;
};

/** Nodes that give their contents a `this` of their own: an arrow inside one is not at the top level. */
const OWN_THIS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ClassDeclaration',
  'ClassExpression',
  'ClassBody',
]);

/** Whether an arrow's parameters or body read what an arrow takes from its surroundings. */
const readsSurroundings = (arrow: ArrowNode): boolean => {
  const pending: Node[] = [...arrow.params, arrow.body];
  while (pending.length > 0) {
    const node = pending.pop()!;
    switch (node.type) {
      case 'ThisExpression':
      case 'Super':
      case 'MetaProperty':
        return true;
      case 'Identifier':
        if ((node as Node & { name: string }).name === 'arguments') return true;
        break;
      default:
        // A function's or class's own `this` is its own; a nested arrow's is this arrow's.
        if (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') continue;
        if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') {
          // Only what is evaluated where the class is written: its heritage and computed keys.
          const { superClass, body } = node as Node & { superClass: Node | null; body: { body: ClassMember[] } };
          if (superClass) pending.push(superClass);
          for (const member of body.body) if (member.computed) pending.push(member.key);
          continue;
        }
        pending.push(...childrenOf(node));
    }
  }
  return false;
};

/** The module's top-level arrow functions that may be functions instead, outermost only. */
const topLevelArrows = (program: Node): ArrowNode[] => {
  const arrows: ArrowNode[] = [];
  const pending: Node[] = [program];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'ArrowFunctionExpression') {
      const arrow = node as ArrowNode;
      if (!readsSurroundings(arrow)) arrows.push(arrow);
      continue;
    }
    if (OWN_THIS.has(node.type)) continue;
    pending.push(...childrenOf(node));
  }
  return arrows;
};

const parseOptions = (onToken: Token[], sourceType: Options['sourceType']): Options => ({
  ecmaVersion: 'latest',
  sourceType,
  allowHashBang: true,
  allowReturnOutsideFunction: sourceType === 'script',
  onToken,
});

/**
 * `code` with each top-level arrow function written as a function expression; `code` itself when it
 * has none, or when it does not parse (esbuild then reports what is wrong with it).
 */
export const withTopLevelFunctions = (code: string): string => {
  const tokens: Token[] = [];
  let program: Node;
  try {
    program = Parser.parse(code, parseOptions(tokens, 'module'));
  } catch {
    tokens.length = 0;
    try {
      program = Parser.parse(code, parseOptions(tokens, 'script'));
    } catch {
      return code;
    }
  }
  const arrows = topLevelArrows(program).sort((a, b) => a.start - b.start);
  if (arrows.length === 0) return code;
  // Where each `=>` is: between an arrow's parameters and its body, past any comment.
  const arrowTokens = tokens.filter((token) => token.type.label === '=>').map((token) => token.start);
  const arrowTokenOf = (arrow: ArrowNode): number => {
    let low = 0;
    let high = arrowTokens.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (arrowTokens[middle]! < arrow.body.start) low = middle + 1;
      else high = middle;
    }
    return arrowTokens[low - 1]!;
  };
  const pieces: string[] = [];
  let copied = 0;
  for (const arrow of arrows) {
    const first = arrow.params[0];
    const last = arrow.params.at(-1);
    const parameters = first && last ? code.slice(first.start, last.end) : '';
    const body = code.slice(arrowTokenOf(arrow) + 2, arrow.end);
    // A concise body is returned; the parentheses keep a line break after `return` from ending it.
    const functionBody = arrow.expression ? `{return (${body})}` : body;
    pieces.push(
      code.slice(copied, arrow.start),
      `${arrow.async ? 'async ' : ''}function(${parameters})${functionBody}`,
    );
    copied = arrow.end;
  }
  pieces.push(code.slice(copied));
  return pieces.join('');
};

/**
 * A plugin that loads each TypeScript and JavaScript file with its top-level arrows as functions;
 * TypeScript is compiled here first, with the project's settings and `target`, as esbuild would.
 */
export const topLevelFunctions = (target: string, tsconfig: string): Plugin => ({
  name: 'top-level-functions',
  setup(build) {
    let tsconfigRaw: Promise<string> | undefined;
    // CommonJS TypeScript (`.cts`) is left to esbuild: it is compiled here as an ES module.
    build.onLoad({ filter: /\.(?:[cm]?js|m?ts)$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes('=>')) return undefined;
      if (!/\.m?ts$/.test(path)) {
        const code = withTopLevelFunctions(source);
        return code === source ? undefined : { contents: code, loader: 'js' };
      }
      tsconfigRaw ??= readFile(tsconfig, 'utf8');
      const { code } = await transform(source, {
        loader: 'ts',
        format: 'esm',
        target,
        tsconfigRaw: await tsconfigRaw,
        sourcefile: path,
      });
      return { contents: withTopLevelFunctions(code), loader: 'js' };
    });
  },
});
