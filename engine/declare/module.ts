/**
 * A module's own declaration, optional: what the admin app calls it. A module file exports it as
 * `moduleLabel`; without one the module is called by its name in words.
 */
export interface ModuleDeclaration {
  /** The `module` its resources name. */
  readonly name: string;
  /** English name, e.g. "Business context" for `businesscontext`. */
  readonly label: string;
  /** German name (default: `label`). */
  readonly labelDe?: string;
}

export const defineModule = (declaration: ModuleDeclaration): ModuleDeclaration => declaration;
