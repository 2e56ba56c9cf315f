/**
 * ESLint rule `skycite/core-boundary`: a module under src/core imports only modules under
 * src/core and packages installed in node_modules. Relative or absolute paths that leave
 * src/core (src/runtime, src/ui, corpus-build …) and Node built-ins (node:fs …, which the
 * browser does not have) are reported. Checks import/export declarations, dynamic import()
 * with a literal, and `import('…')` type references.
 */
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const BUILTINS = new Set(builtinModules);

/** Package name of a bare specifier ("@scope/name/sub" → "@scope/name"). */
function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Why `spec`, imported from `file`, leaves src/core (null when it stays inside). */
export function boundaryProblem(spec, file, root) {
  const core = path.join(root, 'src', 'core');
  if (spec.startsWith('node:') || BUILTINS.has(packageName(spec))) {
    return `"${spec}" is a Node built-in; src/core runs in the browser too. Move the Node code to corpus-build/ or tools/ and pass what it reads in as data.`;
  }
  if (spec.startsWith('.') || path.isAbsolute(spec)) {
    const target = path.resolve(path.dirname(file), spec);
    if (target === core || target.startsWith(core + path.sep)) return null;
    return `"${spec}" resolves to ${path.relative(root, target)}, outside src/core. Domain logic in src/core must not depend on the app, runtime or build code: move the shared part into src/core, or inject it.`;
  }
  if (existsSync(path.join(root, 'node_modules', packageName(spec)))) return null;
  return `"${spec}" is neither a path inside src/core nor an installed package (node_modules/${packageName(spec)} is missing). Use a relative import inside src/core, or add the package to package.json.`;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'src/core imports only src/core and installed packages' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
    messages: { outside: 'src/core boundary: {{problem}}' },
  },
  create(context) {
    const root = context.options[0]?.root ?? context.cwd;
    const file = context.physicalFilename;
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const problem = boundaryProblem(source.value, file, root);
      if (problem) context.report({ node, messageId: 'outside', data: { problem } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export default rule;
