from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html")


def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "games/rules.html")
