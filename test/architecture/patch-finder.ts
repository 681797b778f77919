import ts from 'typescript';

/**
 * Finds, in one TypeScript source file, the uses that tie the service to a library's internals
 * (no-patching.spec.ts): an upgrade of the library can break them without a compile error.
 *
 * - `prototype`: an assignment to a member of a `prototype` (`X.prototype.y = ...`, also through
 *   Object.defineProperty / Object.assign).
 * - `library member`: an assignment to a member of a binding imported (or required) from a package,
 *   or a Node built-in (`pg.Client = ...`, `storage.Store = ...`).
 * - `wrapped method`: a function assigned to a member whose previous value the code took first
 *   (`const emit = server.emit; server.emit = function ...`): wrapping an object's method.
 * - `underscore member`: a member whose name starts with "_", read or written on anything but `this`.
 * - `framework metadata`: a `*_METADATA` key imported from @nestjs/*, or Reflect's metadata read with
 *   one of the framework's own keys (`'__guards__'`, `'design:paramtypes'`, `'self:...'`).
 */
export type PatchRule = 'prototype' | 'library member' | 'wrapped method' | 'underscore member' | 'framework metadata';

export interface PatchFinding {
  file: string;
  line: number;
  rule: PatchRule;
  /** The code that was found (the assigned member, the access, the import), on one line. */
  code: string;
}

const REFLECT_READS = new Set(['getMetadata', 'getOwnMetadata', 'hasMetadata', 'hasOwnMetadata', 'getMetadataKeys', 'getOwnMetadataKeys']);
const FRAMEWORK_KEY = /^(__\w+__$|design:|self:)/;

/** A module specifier that names a package or a Node built-in, not a file of the project. */
const isLibrary = (specifier: string) => !specifier.startsWith('.') && !specifier.startsWith('/');

export function findPatches(file: string, text: string): PatchFinding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: PatchFinding[] = [];
  const report = (node: ts.Node, rule: PatchRule, code = node.getText(source)) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ file, line: line + 1, rule, code: code.replace(/\s+/g, ' ') });
  };

  const libraryBindings = collectLibraryBindings(source);
  /** Member expressions (their text) whose value the code took into a variable or a call's argument, before any assignment. */
  const captured = new Set<string>();

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('@nestjs/')) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if ((element.propertyName ?? element.name).text.endsWith('_METADATA')) report(element, 'framework metadata', node.getText(source));
        }
      }
    }
    if (isMemberAccess(node) && isCapture(node)) captured.add(node.getText(source));
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && isMemberAccess(node.left)) {
      checkAssignedMember(node.left, node.right);
    }
    if (ts.isCallExpression(node)) checkCall(node);
    const underscore = underscoreName(node);
    if (underscore !== undefined) report(node, 'underscore member');
    ts.forEachChild(node, visit);
  };

  const checkAssignedMember = (target: ts.PropertyAccessExpression | ts.ElementAccessExpression, value: ts.Expression | undefined) => {
    const chain = memberChain(target);
    if (chain.some((name) => name === 'prototype')) report(target, 'prototype');
    else if (ts.isIdentifier(rootOf(target)) && libraryBindings.has((rootOf(target) as ts.Identifier).text)) report(target, 'library member');
    else if (value !== undefined && isFunction(value) && captured.has(target.getText(source))) report(target, 'wrapped method');
  };

  const checkCall = (call: ts.CallExpression) => {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression)) return;
    const [object, method] = [callee.expression.text, callee.name.text];
    if (object === 'Object' && (method === 'defineProperty' || method === 'defineProperties' || method === 'assign') && call.arguments.length > 0) {
      const target = call.arguments[0];
      const touchesPrototype = (isMemberAccess(target) && memberChain(target).includes('prototype')) || (ts.isIdentifier(target) && target.text === 'prototype');
      if (touchesPrototype) report(call, 'prototype');
      else if (ts.isIdentifier(rootOf(target)) && libraryBindings.has((rootOf(target) as ts.Identifier).text)) report(call, 'library member');
    }
    if (object === 'Reflect' && REFLECT_READS.has(method)) {
      const key = call.arguments[0];
      const frameworkKey =
        method.endsWith('Keys') ||
        (key !== undefined && ts.isIdentifier(key) && key.text.endsWith('_METADATA')) ||
        (key !== undefined && ts.isStringLiteralLike(key) && FRAMEWORK_KEY.test(key.text));
      if (frameworkKey) report(call, 'framework metadata');
    }
  };

  visit(source);
  return findings;
}

/** The names bound by imports and `require` calls of packages (not of the project's files). */
function collectLibraryBindings(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && isLibrary(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      if (clause && !clause.isTypeOnly) {
        if (clause.name) names.add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
        if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) if (!element.isTypeOnly) names.add(element.name.text);
      }
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const specifier = node.moduleReference.expression;
      if (ts.isStringLiteral(specifier) && isLibrary(specifier.text)) names.add(node.name.text);
    }
    if (ts.isVariableDeclaration(node) && node.initializer && requiresLibrary(node.initializer)) {
      if (ts.isIdentifier(node.name)) names.add(node.name.text);
      else if (ts.isObjectBindingPattern(node.name)) {
        for (const element of node.name.elements) if (ts.isIdentifier(element.name)) names.add(element.name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** `require('pkg')`, `require('pkg').x`, `require(require.resolve('pkg', ...))`, possibly cast (`as ...`). */
function requiresLibrary(expression: ts.Expression): boolean {
  let inner = expression;
  for (;;) {
    if (ts.isAsExpression(inner) || ts.isParenthesizedExpression(inner) || ts.isNonNullExpression(inner) || ts.isTypeAssertionExpression(inner)) {
      inner = inner.expression;
    } else if (ts.isPropertyAccessExpression(inner)) inner = inner.expression;
    else break;
  }
  if (!ts.isCallExpression(inner) || !ts.isIdentifier(inner.expression) || inner.expression.text !== 'require') return false;
  const [specifier] = inner.arguments;
  if (specifier === undefined) return false;
  if (ts.isStringLiteralLike(specifier)) return isLibrary(specifier.text);
  return true; // a computed specifier (require.resolve of a package): not a file of the project
}

function isMemberAccess(node: ts.Node): node is ts.PropertyAccessExpression | ts.ElementAccessExpression {
  return ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node);
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** The names along `a.b['c'].d` (`['a', 'b', 'c', 'd']`; a computed key is `[]`). */
function memberChain(node: ts.Expression): string[] {
  if (ts.isPropertyAccessExpression(node)) return [...memberChain(node.expression), node.name.text];
  if (ts.isElementAccessExpression(node)) {
    const key = node.argumentExpression;
    return [...memberChain(node.expression), ts.isStringLiteralLike(key) ? key.text : '[]'];
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) return memberChain(node.expression);
  if (ts.isIdentifier(node)) return [node.text];
  return ['(…)'];
}

function rootOf(node: ts.Expression): ts.Expression {
  let at = node;
  while (isMemberAccess(at) || ts.isParenthesizedExpression(at) || ts.isAsExpression(at) || ts.isNonNullExpression(at)) at = at.expression;
  return at;
}

function isFunction(node: ts.Expression): boolean {
  let at = node;
  while (ts.isParenthesizedExpression(at) || ts.isAsExpression(at) || ts.isTypeAssertionExpression(at)) at = at.expression;
  return ts.isFunctionExpression(at) || ts.isArrowFunction(at);
}

/**
 * A member's value taken for later use, not called on the spot: `const f = x.m`, `x.m.bind(...)`,
 * `f(x.m)`. Calling `x.m(...)` is no capture.
 */
function isCapture(node: ts.PropertyAccessExpression | ts.ElementAccessExpression): boolean {
  let at: ts.Node = node;
  while (ts.isParenthesizedExpression(at.parent) || ts.isAsExpression(at.parent) || ts.isTypeAssertionExpression(at.parent)) at = at.parent;
  const parent = at.parent;
  if (ts.isVariableDeclaration(parent) && parent.initializer === at) return true;
  if (ts.isBinaryExpression(parent) && parent.right === at && isAssignment(parent.operatorToken.kind)) return true;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === at) return ['bind', 'call', 'apply'].includes(parent.name.text);
  if (ts.isCallExpression(parent) && parent.arguments.includes(at as ts.Expression)) return true;
  return false;
}

/** The "_x" of `obj._x`, `obj['_x']` or `const { _x } = obj` (anything but `this`), else undefined. */
function underscoreName(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node) && node.name.text.startsWith('_') && node.expression.kind !== ts.SyntaxKind.ThisKeyword) {
    return node.name.text;
  }
  if (
    ts.isElementAccessExpression(node) &&
    ts.isStringLiteralLike(node.argumentExpression) &&
    node.argumentExpression.text.startsWith('_') &&
    node.expression.kind !== ts.SyntaxKind.ThisKeyword
  ) {
    return node.argumentExpression.text;
  }
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
    const name = node.propertyName ?? node.name;
    const declaration = node.parent.parent;
    const fromThis = ts.isVariableDeclaration(declaration) && declaration.initializer?.kind === ts.SyntaxKind.ThisKeyword;
    if ((ts.isIdentifier(name) || ts.isStringLiteral(name)) && name.text.startsWith('_') && !fromThis) return name.text;
  }
  return undefined;
}
