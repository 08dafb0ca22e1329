// ESLint over web/'s own files (node_modules is never linted): the report's scripts and its style
// sheet, which the build embeds in the binary and report.html inlines (docs/compare-report.md).
// The test web.lint runs `eslint --max-warnings 0 .` here: any finding fails it.
import css from "@eslint/css";
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";

export default defineConfig([
  {
    // Classic scripts, not modules: each is inlined into a <script> element of its own, and they
    // share only what they put on window (ringsideRecordError) and uPlot's global.
    files: ["report/**/*.js"],
    plugins: { js },
    extends: ["js/recommended"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.browser, uPlot: "readonly" },
    },
    rules: {
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-implicit-globals": "error",
      strict: ["error", "function"],
    },
  },
  {
    files: ["report/**/*.css"],
    plugins: { css },
    language: "css/css",
    extends: ["css/recommended"],
  },
  {
    files: ["eslint.config.mjs"],
    plugins: { js },
    extends: ["js/recommended"],
    languageOptions: { globals: globals.node },
  },
]);
