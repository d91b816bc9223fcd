import type { serviceIcons } from "#app/content/icons.ts";
/** The four service lines: read by the home page cards, the services page and (later) structured data. */

/** Any number of offerings per line and of features per offering: the page lays them out (services.tsx). */
export type Offering = { title: string; description: string; features: string[] };

export type ServiceLine = {
  id: "it-infrastructure" | "it-consulting" | "ai-consulting" | "ai-development";
  /** Short name on the home page card. */
  cardTitle: string;
  /** Category heading on the services page. */
  title: string;
  icon: (typeof serviceIcons)[number];
  summary: string;
  /** Three bullets on the home page card. */
  highlights: [string, string, string];
  offerings: Offering[];
};

export const serviceLines: ServiceLine[] = [
  {
    id: "it-infrastructure",
    cardTitle: "IT Infrastructure",
    title: "IT Infrastructure",
    icon: "Server",
    summary:
      "Servers, storage, networks and cloud capacity — bought, rented or run for you as a service.",
    highlights: [
      "Hardware procurement and setup",
      "Flexible rental and leasing",
      "Managed infrastructure as a service",
    ],
    offerings: [
      {
        title: "Buy Solutions",
        description:
          "Own your hardware outright. We size, source, rack and configure servers, storage and networking for your workloads, and you keep the asset — and its depreciation — on your books.",
        features: [
          "Vendor-neutral sizing and quotes",
          "Rack, cabling and configuration on site",
          "Warranty and lifecycle tracking",
          "Section 179 and MACRS guidance from your accountant's checklist",
        ],
      },
      {
        title: "Rental Options",
        description:
          "Keep cash in the business. Rent or lease enterprise equipment by the month, with upgrades built into the term so your hardware never falls a generation behind.",
        features: [
          "Terms from 12 to 60 months",
          "Fixed monthly payments",
          "Hardware refresh at mid-term",
          "Buy-out option at the end of the lease",
        ],
      },
      {
        title: "Infrastructure as a Service",
        description:
          "We run it, you use it. Compute, storage and backup delivered from our managed platform, monitored around the clock and billed for what you actually consume.",
        features: [
          "99.9% uptime service level",
          "24/7 monitoring and incident response",
          "Encrypted, off-site backups",
          "Scale up or down within a business day",
        ],
      },
    ],
  },
  {
    id: "it-consulting",
    cardTitle: "IT Consulting",
    title: "IT Consulting",
    icon: "Lightbulb",
    summary: "Plans, architectures and audits that turn technology spending into business results.",
    highlights: [
      "Digital transformation roadmaps",
      "Scalable system architecture",
      "Security and cost audits",
    ],
    offerings: [
      {
        title: "Digital Strategy",
        description:
          "A practical roadmap from where your systems are today to where the business needs them in three years, with costs, milestones and the quick wins to fund the rest.",
        features: [
          "Current-state assessment and interviews",
          "Prioritized three-year roadmap",
          "Budget and return-on-investment model",
          "Quarterly progress reviews",
        ],
      },
      {
        title: "System Architecture",
        description:
          "Designs that survive growth: we map your applications and data flows, remove single points of failure and document a target architecture your team can build toward.",
        features: [
          "Cloud, hybrid and on-premises designs",
          "High availability and disaster recovery plans",
          "Integration and data flow mapping",
          "Architecture decision records your team keeps",
        ],
      },
      {
        title: "Technology Audits",
        description:
          "An independent look at what you run and what it costs. We find the security gaps, the unused licenses and the fragile systems before an outage or an auditor does.",
        features: [
          "Security posture and patch review",
          "License and cloud spend analysis",
          "Backup and recovery testing",
          "Written findings ranked by risk",
        ],
      },
    ],
  },
  {
    id: "ai-consulting",
    cardTitle: "AI Consulting",
    title: "AI Consulting",
    icon: "Brain",
    summary: "Where AI pays off in your business, how to build it, and how to run it responsibly.",
    highlights: [
      "AI opportunity assessment",
      "Machine learning implementation",
      "Responsible AI governance",
    ],
    offerings: [
      {
        title: "AI Strategy Development",
        description:
          "We separate the use cases that will pay back from the ones that only demo well, estimate the data and effort each needs, and sequence them into a plan leadership can fund.",
        features: [
          "Use-case discovery workshops",
          "Data readiness assessment",
          "Build, buy or partner analysis",
          "Twelve-month AI roadmap",
        ],
      },
      {
        title: "Machine Learning Implementation",
        description:
          "From prototype to production: we build, validate and deploy models on your data, with the monitoring and retraining that keep them accurate after launch.",
        features: [
          "Data pipelines and feature engineering",
          "Model training and evaluation",
          "Deployment to cloud or on-premises",
          "Drift monitoring and retraining",
        ],
      },
      {
        title: "AI Ethics & Compliance",
        description:
          "Use AI without surprises. We review models for bias, document how they decide, and align your practices with the NIST AI Risk Management Framework and the EU AI Act where it applies.",
        features: [
          "Bias and fairness testing",
          "Model documentation and audit trails",
          "Policy and governance templates",
          "Regulatory readiness reviews",
        ],
      },
    ],
  },
  {
    id: "ai-development",
    cardTitle: "AI Development",
    title: "AI Software Development",
    icon: "Code",
    summary:
      "Custom AI software that automates marketing, reads financial data and watches global risk.",
    highlights: ["Marketing automation", "Financial analysis tools", "Global market risk analysis"],
    offerings: [
      {
        title: "Marketing Automation",
        description:
          "Campaigns that adapt on their own: segmentation, send-time optimization and content suggestions trained on your customer data and wired into the tools your team already uses.",
        features: [
          "Customer segmentation models",
          "Personalized content generation",
          "Send-time and channel optimization",
          "CRM and email platform integration",
        ],
      },
      {
        title: "Financial Analysis",
        description:
          "Software that reads invoices, statements and ledgers, flags anomalies and forecasts cash flow, so your finance team spends its time on decisions instead of data entry.",
        features: [
          "Document extraction and reconciliation",
          "Cash flow forecasting",
          "Anomaly and fraud detection",
          "Dashboards your accountants trust",
        ],
      },
      {
        title: "Global Market Risk Analysis",
        description:
          "Continuous monitoring of currency, supply-chain and regulatory signals across the markets you trade in, summarized into alerts and scenarios your leadership can act on.",
        features: [
          "Multi-market news and data ingestion",
          "Scenario and stress modelling",
          "Supplier and country risk scoring",
          "Daily executive briefings",
        ],
      },
    ],
  },
];
