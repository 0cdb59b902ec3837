export function validate(data: any, { instancePath, parentData, parentDataProperty, rootData, dynamicAnchors }?: {
    instancePath?: string | undefined;
    rootData?: any;
    dynamicAnchors?: {} | undefined;
}): boolean;
export namespace validate {
    namespace evaluated {
        let props: boolean;
        let dynamicProps: boolean;
        let dynamicItems: boolean;
    }
}
export default validate20;
declare function validate20(data: any, { instancePath, parentData, parentDataProperty, rootData, dynamicAnchors }?: {
    instancePath?: string | undefined;
    rootData?: any;
    dynamicAnchors?: {} | undefined;
}): boolean;
declare namespace validate20 { }
//# sourceMappingURL=schema-validator.d.ts.map