// The linter's rules for this codebase: typescript-eslint's recommended set, and two of our own that a reader needs —
// names that say what a thing is, and comments that cite only files that exist.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * Single letters a reader follows anywhere: loop indices and coordinates. Everywhere else a one-letter name must live
 * in a one-line arrow function (`robots.map((r) => r.id)`), where the line itself says what it is.
 */
const CONVENTIONAL = new Set(["_", "i", "j", "k", "x", "y", "z"]);

const isOneLineArrow = (fn) => fn?.type === "ArrowFunctionExpression" && fn.loc.start.line === fn.loc.end.line;

/** The binding identifiers a declaration pattern introduces (`{ a, b: [c] }` → a, c). */
function bound(pattern) {
  if (!pattern) return [];
  switch (pattern.type) {
    case "Identifier":
      return [pattern];
    case "ObjectPattern":
      return pattern.properties.flatMap((p) => bound(p.type === "RestElement" ? p.argument : p.value));
    case "ArrayPattern":
      return pattern.elements.flatMap((e) => bound(e));
    case "RestElement":
      return bound(pattern.argument);
    case "AssignmentPattern":
      return bound(pattern.left);
    case "TSParameterProperty":
      return bound(pattern.parameter);
    default:
      return [];
  }
}

const meaningfulNames = {
  meta: {
    type: "suggestion",
    docs: { description: "a name longer than one letter, unless it lives on one line or is an index or a coordinate" },
    schema: [],
    messages: {
      short:
        "'{{name}}' hides what it is: name it for what it holds (a one-letter name is for a one-line arrow function, an index or a coordinate)",
    },
  },
  create(context) {
    const check = (id, scopeNode) => {
      if (id.name.length !== 1 || CONVENTIONAL.has(id.name)) return;
      if (scopeNode && isOneLineArrow(scopeNode)) return;
      context.report({ node: id, messageId: "short", data: { name: id.name } });
    };
    const functionLike = (node) => {
      if (node.id) check(node.id);
      for (const param of node.params) for (const id of bound(param)) check(id, node);
    };
    return {
      FunctionDeclaration: functionLike,
      FunctionExpression: functionLike,
      ArrowFunctionExpression: functionLike,
      VariableDeclarator(node) {
        // A binding in a one-line arrow's body (rare) or a loop's own header counts with its line.
        const loop = node.parent.parent;
        const inLoopHeader =
          loop && /^For(In|Of)?Statement$/.test(loop.type) && loop.loc.start.line === node.loc.start.line;
        for (const id of bound(node.id))
          if (!inLoopHeader || id.name.length !== 1 || !/^[a-z]$/.test(id.name)) check(id);
      },
      CatchClause(node) {
        for (const id of bound(node.param)) check(id);
      },
      ClassDeclaration(node) {
        if (node.id) check(node.id);
      },
    };
  },
};

/** A path a comment cites: a repository folder's name, then a path (`graphs/clea/graph.ts`, `nodes/executor.ts`). */
const CITED =
  /(?<![\w./@-])((?:cli|evals|graphs|nodes|runtime|models|tools|memory|robots|ros|docs|test)\/[\w./<>*-]*[\w>*])/g;

const citedFilesExist = {
  meta: {
    type: "problem",
    docs: { description: "a file or folder a comment cites exists in the repository" },
    schema: [],
    messages: { missing: "this comment cites {{path}}, which is not in the repository" },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          for (const match of comment.value.matchAll(CITED)) {
            const path = match[1].replace(/\.$/, "");
            // A pattern (`graphs/<id>/report.ts`, `runs/*`) names a family of files, not one.
            if (/[<>*]/.test(path)) continue;
            const candidates = [path, `${path}.ts`, `${path}.js`, join(path, "index.ts")];
            if (!candidates.some((candidate) => existsSync(join(ROOT, candidate)))) {
              context.report({ loc: comment.loc, messageId: "missing", data: { path } });
            }
          }
        }
      },
    };
  },
};

export default tseslint.config(
  { ignores: ["node_modules/", "runs/", "data/", "docs/", "ros/", "test/fixtures/**/*.json"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { robograph: { rules: { "meaningful-names": meaningfulNames, "cited-files-exist": citedFilesExist } } },
    languageOptions: { globals: globals.node },
    rules: {
      "robograph/meaningful-names": "error",
      "robograph/cited-files-exist": "error",
      // An underscore says "deliberately unused" (a rest sibling dropped from a copy, a parameter an interface passes).
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  // The viewer's page script runs in the browser, beside Chart.js's global.
  { files: ["cli/viewer/**/*.js"], languageOptions: { globals: { ...globals.browser, Chart: "readonly" } } },
);
