"""Deterministic, realistic filler content: people, companies, projects and the text they write.

Everything comes from one `random.Random(seed)`, so the same seed gives the
same world. This is our own small generator rather than Faker: it needs a few
hundred names and phrasings, and its output must never change between package
versions (Faker's locales do), or stored state hashes would drift.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = ("Aisha Ben Carla Dmitri Elena Farid Grace Hiro Ines Jonas Kavya Liam Maya Nikolai Olivia Pedro Quinn Rosa "
         "Samir Tara Umar Vera Wei Ximena Yusuf Zoe Amara Bruno Chloe Diego Emeka Fatima Goran Hana Ivan Julia Kenji "
         "Lena Marco Nadia Oscar Priya Rafael Sofia Tomas Uma Victor Wanda Yara").split()  # fmt: skip
LAST = ("Abara Becker Castillo Dubois Eriksen Fischer Garcia Haddad Ito Jensen Kowalski Lindqvist Moreau Nakamura "
        "Okafor Petrov Quintero Rossi Schmidt Tanaka Ueda Varga Weber Xu Yilmaz Zhang Alvarez Brandt Costa Demir "
        "Evans Ferreira Gupta Horvat Iqbal Kim Lopez Mensah Novak Ortiz Park Reyes Silva Torres Ulrich Vogel Wright").split()  # fmt: skip
COMPANIES = (("Brightline Logistics", "brightline.example"), ("Kestrel Analytics", "kestrel-analytics.example"),
             ("Harbor & Vine", "harborvine.example"), ("Oakridge Legal", "oakridge-legal.example"),
             ("Quanta Print", "quantaprint.example"), ("Meridian Travel", "meridiantravel.example"),
             ("Solstice Health", "solstice-health.example"), ("Tidewater Capital", "tidewater.example"),
             ("Nimbus Cloudworks", "nimbus.example"), ("Pinecrest Events", "pinecrest-events.example"))  # fmt: skip
PROJECTS = ("Atlas migration", "Q3 launch", "customer portal", "data retention review", "pricing refresh",
            "onboarding revamp", "mobile beta", "vendor consolidation", "security audit", "annual report",
            "hiring plan", "office move", "partner summit", "support backlog", "API deprecation")  # fmt: skip
TEAMS = ("engineering", "design", "marketing", "sales", "finance", "legal", "support", "people-ops", "product", "data")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")

MAIL_TEMPLATES = (
    ("Re: {project} status", "Hi {to_first},\n\nQuick update on the {project}: we finished {n} of {m} milestones this week. "
     "The main open item is {risk}. I'll share more on {weekday}.\n\nBest,\n{from_first}"),
    ("{project}: notes from today's sync", "Notes from today's sync on the {project}:\n- {n} action items assigned\n"
     "- next review on {weekday}\n- {risk} still needs an owner\n\n{from_first}"),
    ("Invoice {invoice} from {company}", "Hello,\n\nPlease find invoice {invoice} for {amount} EUR attached, due in {n} days.\n"
     "Thank you for your business.\n\n{company} accounts"),
    ("Can we meet {weekday}?", "Hi {to_first}, do you have 30 minutes on {weekday} to go through the {project}? "
     "Any time after {hour}:00 works for me.\n{from_first}"),
    ("Your {company} order has shipped", "Your order #{invoice} has shipped and should arrive within {n} business days."),
    ("Weekly digest: {team}", "This week in {team}: {n} tickets closed, {m} opened. Spotlight: the {project}. "
     "Reminder: submit expenses by {weekday}."),
    ("Question about the {project}", "Hi {to_first},\n\nA customer asked whether the {project} changes their contract terms. "
     "Do you know who owns that answer?\n\nThanks,\n{from_first}"),
    ("Reminder: {team} all-hands", "The {team} all-hands is on {weekday} at {hour}:00. Agenda: {project} and Q&A."),
    ("Draft for review: {project} one-pager", "Hi {to_first}, here is a first draft of the {project} one-pager. "
     "Comments welcome until {weekday}.\n{from_first}"),
    ("Travel booking confirmation", "Your trip for the {project} is booked: {n} nights, reference {invoice}. Safe travels."),
    ("FYI: {risk}", "Flagging early: {risk} may slip the {project} by {n} days. No action needed yet.\n{from_first}"),
    ("Thanks!", "Thanks for the help with the {project} yesterday, {to_first}. Much appreciated.\n{from_first}"),
)  # fmt: skip
RISKS = ("the vendor contract", "the load test results", "legal sign-off", "the budget approval", "the translation backlog",
         "a staffing gap", "the data export", "the certificate renewal", "the design review", "the QA environment")  # fmt: skip


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    company: str

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def address(self) -> str:
        return f"{self.name} <{self.email}>"


class Corpus:
    """A seeded source of people and text; call order fixes the output."""

    def __init__(self, seed: int | str):
        self.rng = random.Random(f"clawarena-filler/{seed}")
        self._people: list[Person] = []
        for _ in range(60):
            first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
            company, domain = self.rng.choice(COMPANIES)
            self._people.append(Person(f"{first} {last}", f"{first}.{last}@{domain}".lower(), company))

    def person(self) -> Person:
        return self.rng.choice(self._people)

    def colleague(self, domain: str) -> Person:
        first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
        return Person(f"{first} {last}", f"{first}.{last}@{domain}".lower(), domain)

    def pick(self, options):
        return self.rng.choice(options)

    def number(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def fields(self, to_first: str, from_first: str, company: str) -> dict[str, str]:
        n = self.number(2, 9)
        return {
            "project": self.pick(PROJECTS), "team": self.pick(TEAMS), "weekday": self.pick(WEEKDAYS),
            "risk": self.pick(RISKS), "n": str(n), "m": str(n + self.number(1, 6)), "hour": str(self.number(9, 16)),
            "invoice": f"INV-{self.number(10000, 99999)}", "amount": f"{self.number(300, 25000):,}",
            "company": company, "to_first": to_first, "from_first": from_first,
        }  # fmt: skip

    def mail(self, to_first: str, sender: Person) -> tuple[str, str]:
        subject, body = self.pick(MAIL_TEMPLATES)
        values = self.fields(to_first, sender.first, sender.company)
        return subject.format(**values), body.format(**values)
