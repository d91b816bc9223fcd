import { site } from "#app/config/site.ts";

/** The office address as a US letter has it: street, then "City, ST 12345"; the country for readers abroad. */
export function PostalAddress({ withCountry = false }: { withCountry?: boolean }) {
  const a = site.address;
  return (
    <address className="not-italic">
      {a.street}
      <br />
      {a.city}, {a.region} {a.postalCode}
      {withCountry && (
        <>
          <br />
          United States
        </>
      )}
    </address>
  );
}
