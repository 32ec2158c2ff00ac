// The package's `require` condition: it is an ES module only (its entry uses top-level await, which
// `require()` cannot load), so a CommonJS `require()` gets this message instead of a generic
// exports error.
throw new Error(
    '@johannes.latzel/llm-chat-file is an ES module only and cannot be loaded with require(). ' +
        'Use `import { FileToolPackage } from "@johannes.latzel/llm-chat-file"` in an ES module (.mjs, or "type": "module"), ' +
        'or `const { FileToolPackage } = await import("@johannes.latzel/llm-chat-file")` from CommonJS.',
);
