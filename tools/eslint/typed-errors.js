/**
 * ESLint rule `skycite/typed-errors`: errors are typed and told apart by their class or code, never
 * by a name string or the words of their message (docs/architecture.md, "Principles"; core/errors.ts).
 * Reported:
 *  - `new Error(…)` (thrown or rejected with): a SkyCiteError subclass whose `code` says what went
 *    wrong (a plain Error stays only where nothing can catch it meaningfully, with a disable comment
 *    saying why);
 *  - `x.name === 'SomethingError'` (or `!==`, either side): use `instanceof` or the error's `code`;
 *  - a pattern tested against an error's message (`re.test(e.message)`, `re.exec(e.message)`,
 *    `e.message.match(…)`, `.includes(…)`, `.startsWith(…)`, `.endsWith(…)`, `.search(…)`): the
 *    message is for people; give the error a class, a code or a field instead.
 * The one place that reads a foreign library's failures by their text (core/llm/errors.ts
 * mapEngineError: web-llm, tvmjs and the browsers' fetch errors have no other sign) does so over a
 * string it builds, outside this rule's reach on purpose: it turns them into typed errors once.
 */

const ERRORISH = /(?:Error|Exception)$/;

const isMember = (node, prop) => node?.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier' && node.property.name === prop;

/** `e.message`, or `String(e.message)`. */
const isMessage = (node) =>
  isMember(node, 'message') ||
  (node?.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'String' && isMember(node.arguments[0], 'message'));

const errorNameLiteral = (node) => node?.type === 'Literal' && typeof node.value === 'string' && ERRORISH.test(node.value);

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'errors are typed (SkyCiteError) and recognised by class or code, never by name string or message' },
    schema: [],
    messages: {
      plainError: 'typed errors: throw a SkyCiteError subclass with its code (src/core/errors.ts), not a plain Error.',
      byName: 'typed errors: recognise an error by its class (instanceof) or its code, not by the name string "{{name}}".',
      byMessage: 'typed errors: recognise an error by its class, code or fields, not by the words of its message.',
    },
  },
  create(context) {
    return {
      NewExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'Error') context.report({ node, messageId: 'plainError' });
      },
      BinaryExpression(node) {
        if (!['===', '!==', '==', '!='].includes(node.operator)) return;
        const [member, literal] = isMember(node.left, 'name') ? [node.left, node.right] : [node.right, node.left];
        if (isMember(member, 'name') && errorNameLiteral(literal)) context.report({ node, messageId: 'byName', data: { name: literal.value } });
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return;
        const method = callee.property.name;
        if ((method === 'test' || method === 'exec') && isMessage(node.arguments[0])) context.report({ node, messageId: 'byMessage' });
        else if (['match', 'includes', 'startsWith', 'endsWith', 'search'].includes(method) && isMessage(callee.object))
          context.report({ node, messageId: 'byMessage' });
      },
    };
  },
};

export default rule;
