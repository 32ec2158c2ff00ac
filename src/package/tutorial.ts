/**
 * The package's tutorial for the model (`FileToolPackage.tutorial()`, the MCP server's
 * `instructions`): path resolution, common mistakes, exploration tips. Its own module, so that
 * the MCP server can answer `initialize` before the tools are loaded.
 */
export const TUTORIAL = `Paths: relative paths resolve against the current workspace; "." is the workspace root.
An absolute path such as "/src" means the filesystem root, not the workspace: use "./src" or "src".
Call file_access_info to see which directories are readable or writable and which is the workspace.
Explore with list_directory (recursive: true for a tree) and search_entries (name_pattern, content_pattern: case-insensitive JavaScript regexes, or plain text with literal: true; timestamps as ISO 8601). A cut listing or search says which offset gets the next page.
read_file reads a line range (start_line, end_line) or the last_lines of a file of any size; a line longer than max_chars is continued with start_char, as the truncation note says.
Before changing an existing file, read it with read_file: write and edit tools refuse files not read, or changed since the last read.
For partial edits use replace_file_lines (by line numbers), insert_file_content (before a line, or append) or replace_file_content (exact text); write_file replaces a whole file or creates a new one.
Read several files at once by passing several paths to read_file; each gets its own result.`;
