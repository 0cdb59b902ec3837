export type ValidationError = {
    element: string;
    message: string;
};
/**
 * @typedef {{
 *   element: string,
 *   message: string,
 * }} ValidationError
 */
export class ConformanceTester {
    /** @type {ValidationError[]} */
    errors: ValidationError[];
    /** @type {ValidationError[]} */
    warnings: ValidationError[];
    /**
     * @param {string} message
     * @param {string} [element='Root']
     */
    add_error(message: string, element?: string): void;
    /**
     * @param {string} message
     * @param {string} [element='Root']
     */
    add_warning(message: string, element?: string): void;
    /** @param {any} manifest_data */
    run_json_schema_validation(manifest_data: any): boolean;
    /**
     * @param {string} raw_content
     * @param {string} source_label
     */
    validate_manifest(raw_content: string, source_label: string): boolean;
}
//# sourceMappingURL=ard.d.ts.map